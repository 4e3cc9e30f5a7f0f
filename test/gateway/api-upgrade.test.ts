import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { Tx } from '../../gateway/src/store/store.js' with { 'resolution-mode': 'import' };
import {
  BACKEND,
  createAccount,
  freePort,
  removeDir,
  request,
  runCli,
  startGateway,
  tempDir,
  untilIdle,
  type TestAccount,
  type TestGateway,
} from '../helpers/gateway';
import { logLines } from '../helpers/log-lines';
import { openStoreOf } from '../helpers/stopped-store';
import { HANDOFF_NOTICE, incoming, Receiver, uniquePhone } from './api-support';

/**
 * What release 0.1.0 stored of a conversation, read by this release: the data as 0.1.0 wrote it (conversations whose
 * last message names no author, `awaiting` by 0.1.0's rule, no time of the hand-off notice, no wait for a person
 * timed nor its reminder queued; no mark of the upgrade, and on PostgreSQL no migration 21) reads after a start
 * exactly as this release made it. The walk from a built 0.1.0 is upgrade.system.test.ts; this one proves the upgrade
 * itself, quickly.
 */

/** This build's release. */
const VERSION: string = JSON.parse(readFileSync(path.resolve(__dirname, '../../gateway/package.json'), 'utf8')).version;
const env = { LEADCHAT_BOT_DEBOUNCE: '0s', LEADCHAT_JOB_POLL: '100ms' };
let gw: TestGateway;
let account: TestAccount;
const contacts: Record<string, string> = {};
let outbox: Receiver | undefined;

afterAll(async () => {
  await outbox?.close();
  if (!gw) return;
  await gw.stop();
  removeDir(gw.dataDir);
});

const v1 = (method: string, pathname: string, body?: unknown) =>
  request(gw, method, `/v1/${pathname}`, { apiKey: account.apiKey, body });

async function write(name: string, body: string): Promise<void> {
  const res = await v1(
    'POST',
    'incoming_custom_channel_message',
    incoming({ fromId: `visitor-${name}`, channel: 'web-chat', body }),
  );
  expect(res.status).toBe(200);
  contacts[name] ??= (await v1('GET', `messages/${res.body.messageId}`)).body.contactId;
  await untilIdle(gw);
}

/** The FAQ the clinic's bot answers from. */
const OPENING_HOURS = [{ question: 'What are your opening hours?', answer: 'We are open 9 to 5.' }];

/**
 * A gateway of its own (the one before stopped, its data removed) whose account's default campaign answers the web
 * chat, from `faqs` when given.
 */
async function clinicGateway(faqs?: typeof OPENING_HOURS): Promise<void> {
  if (gw) {
    await gw.stop();
    removeDir(gw.dataDir);
  }
  gw = await startGateway(env);
  account = await createAccount(gw);
  const campaign = await v1('POST', 'campaigns', {
    name: 'Clinic',
    channel: 'custom',
    customChannel: 'web-chat',
    ...(faqs ? { bot: { faqs } } : {}),
  });
  expect((await v1('PUT', 'settings/bot', { defaultCampaignId: campaign.body.id })).status).toBe(200);
}

/** The marks of the upgrades done, by every release since 0.1.0, which had none. */
const MARKS = [
  'conversations-upgraded-1',
  'handoff-waits-timed-1',
  'conversations-upgraded-2',
  'handoff-waits-timed-2',
  'failed-answers-handed-1',
];

const FILTERS = ['', '&needsReply=true', '&needsReply=false', '&status=handed_off', '&status=opted_out'];

async function readAll(): Promise<Record<string, unknown>> {
  const reads: Record<string, unknown> = {};
  for (const filter of FILTERS) reads[filter] = (await v1('GET', `conversations?limit=200${filter}`)).body;
  return reads;
}

/**
 * Rewrites the stopped gateway's conversations as an earlier release stored them (`rewrite` changes one as it left
 * it, and answers whether it did), and forgets the upgrades that release had not done: their `marks`, on PostgreSQL
 * the migrations from `migration` on, on the embedded store the data dir's format when the release wrote an older
 * one. Answers how many conversations it rewrote.
 */
async function asReleaseLeftThem(
  rewrite: (tx: Tx, conversation: any) => Promise<boolean>,
  forget: { marks: string[]; migration: number; storeFormat?: number },
): Promise<number> {
  const store = await openStoreOf(gw.env);
  let rewritten = 0;
  try {
    await store.transact(async (tx) => {
      for (const c of await tx.scan<any>('conversations', { limit: 200 })) if (await rewrite(tx, c)) rewritten += 1;
      if (BACKEND === 'lowdb') for (const mark of forget.marks) await tx.remove('gateway_settings', mark);
    });
  } finally {
    await store.close();
  }
  if (BACKEND === 'postgres') {
    const client = new Client({ connectionString: gw.env.LEADCHAT_DATABASE_URL });
    await client.connect();
    try {
      await client.query('DELETE FROM leadchat_settings WHERE name = ANY($1)', [forget.marks]);
      await client.query('DELETE FROM leadchat_migrations WHERE version >= $1', [forget.migration]);
    } finally {
      await client.end();
    }
  } else if (forget.storeFormat !== undefined) {
    writeFileSync(path.join(gw.dataDir, 'format'), `{"storeFormat":${forget.storeFormat}}\n`);
  }
  return rewritten;
}

/** The conversations as 0.1.0 stored them; the upgrades of every release since forgotten. */
const asReleaseOneLeftThem = () =>
  asReleaseLeftThem(
    async (tx, c) => {
      const { author: _a, authorName: _n, ...lastMessage } = c.lastMessage ?? {};
      const awaiting = (c.unread ?? 0) > 0 || c.lastMessage?.direction === 'incoming' ? 'reply' : null;
      // Nor did it time a wait for a person, nor queue its reminder.
      if (c.waitingSince) await tx.cancelJobs(`handoff_reminder:${c.id}:${c.waitingSince}`);
      await tx.update<any>('conversations', c.id, {
        lastMessage: c.lastMessage ? lastMessage : null,
        awaiting,
        handoffNoticeAt: undefined,
        waitingSince: undefined,
        remindedAt: undefined,
      });
      return true;
    },
    { marks: MARKS, migration: 21, storeFormat: 2 },
  );

test(`conversations as release 0.1.0 stored them read after the upgrade as this release made them (${BACKEND})`, async () => {
  await clinicGateway(OPENING_HOURS);
  // The team's replies go: each answers its contact.
  outbox = await Receiver.start();
  expect((await v1('PUT', 'settings', { customChannelWebhookUrl: outbox.url })).status).toBe(200);
  await write('ada', 'I want to talk to a person');
  await write('ben', 'I want to talk to a person');
  expect((await v1('POST', `contacts/${contacts.ben}/messages`, { body: 'Hello Ben!' })).status).toBe(201);
  await write('eve', 'I want to talk to a person');
  expect((await v1('POST', `contacts/${contacts.eve}/messages`, { body: 'Hello Eve!' })).status).toBe(201);
  await write('eve', 'Can I come on Friday?');
  await write('cleo', 'What are your opening hours?');
  await write('dan', 'Hello?');
  await write('dan', 'STOP');
  const made = await readAll();
  expect((made['&needsReply=true'] as any).data.map((c: any) => c.contactId)).toEqual([contacts.eve, contacts.ada]);

  expect(await gw.stop()).toBe(0);
  expect(await asReleaseOneLeftThem()).toBe(5);
  gw = await startGateway({ ...env, LEADCHAT_LOG_LEVEL: 'info' }, gw.dataDir);
  // Said once, by whichever does it: the embedded store's walk, or the database's migration.
  expect(gw.output()).toContain(
    BACKEND === 'lowdb' ? 'conversations stored by an earlier release brought up to date' : '"version":21',
  );
  // Those waiting for a person are timed from when they began to (which this release wrote in the same transaction as
  // the hand-off or the message, a moment later): Ada from the hand-off, Eve from her message after the
  // team's reply. The team is reminded of each when it runs out.
  const upgraded = await readAll();
  const [eve, ada] = (upgraded['&needsReply=true'] as any).data;
  expect(ada.waitingSince).toBe(ada.handoff.at);
  expect(eve.waitingSince).toBe(eve.lastMessage.createdAt);
  const timed = new Map([ada, eve].map((c) => [c.id, c.waitingSince]));
  const asTimed = (c: any) => {
    if (!c.waitingSince) return c;
    const later = Date.parse(c.waitingSince) - Date.parse(timed.get(c.id));
    expect(later >= 0 && later < 1000).toBe(true);
    return { ...c, waitingSince: timed.get(c.id) };
  };
  expect(upgraded).toEqual(
    Object.fromEntries(
      Object.entries(made).map(([f, read]: [string, any]) => [f, { ...read, data: read.data.map(asTimed) }]),
    ),
  );
  const pending = await request(gw, 'GET', '/admin/v1/jobs?status=pending&limit=200', {
    headers: { authorization: `Bearer ${gw.adminToken}` },
  });
  expect(pending.body.data.filter((j: any) => j.kind === 'handoff_reminder').map((j: any) => j.data)).toEqual(
    expect.arrayContaining([
      { conversationId: ada.id, since: ada.waitingSince },
      { conversationId: eve.id, since: eve.waitingSince },
    ]),
  );
  expect(pending.body.data.filter((j: any) => j.kind === 'handoff_reminder')).toHaveLength(2);
  if (BACKEND === 'lowdb') {
    expect(JSON.parse(readFileSync(path.join(gw.dataDir, 'format'), 'utf8'))).toEqual({
      storeFormat: 3,
      gatewayVersion: expect.any(String),
    });
  }

  // Told a person will answer at the hand-off: asking again at once is not met by a second notice.
  await write('ada', 'Is anybody there? I want to talk to a person');
  const said = (await v1('GET', `contacts/${contacts.ada}/messages?limit=200`)).body.data as any[];
  expect(said.filter((m) => m.body === HANDOFF_NOTICE)).toHaveLength(1);
});

test(`data a newer release wrote is refused at start, naming both releases (${BACKEND})`, async () => {
  const dataDir = tempDir('leadchat-newer-');
  const first = await startGateway(env, dataDir);
  expect(await first.stop()).toBe(0);
  let expected: string;
  if (BACKEND === 'postgres') {
    const client = new Client({ connectionString: first.env.LEADCHAT_DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: number }>(
        'SELECT max(version) AS version FROM leadchat_migrations',
      );
      await client.query(
        `INSERT INTO leadchat_migrations (version, name, gateway_version) VALUES (999, 'later', '99.1.0')`,
      );
      expected = `store: the database was migrated by leadchat-gateway 99.1.0 to schema version 999, newer than this gateway (leadchat-gateway ${VERSION}) reads (schema version ${rows[0]!.version}): upgrade the gateway (README, "Upgrades"); nothing was changed`;
    } finally {
      await client.end();
    }
  } else {
    writeFileSync(path.join(dataDir, 'format'), '{"storeFormat":4,"gatewayVersion":"99.1.0"}\n');
    expected = `the data dir ${dataDir} was written by leadchat-gateway 99.1.0 in store format 4, newer than this gateway (leadchat-gateway ${VERSION}) reads (store format 3): upgrade the gateway (README, "Upgrades"); nothing was changed`;
  }
  const refused = await runCli(['serve'], { ...first.env, LEADCHAT_PORT: String(await freePort()) });
  expect(refused.code).toBe(1);
  expect(logLines(refused.stdout + refused.stderr)).toEqual([
    expect.objectContaining({ level: 60, msg: 'the gateway could not start', reason: expected }),
  ]);
  removeDir(dataDir);
});

/**
 * The conversations as 0.2.0 stored them: a team reply that failed answered the contact there (it took such a
 * conversation out of `awaiting` and ended the contact's wait, cancelling its reminder); the upgrades since forgotten.
 */
const asReleaseTwoLeftThem = () =>
  asReleaseLeftThem(
    async (tx, c) => {
      const last = c.lastMessage;
      if (last?.direction !== 'outgoing' || last.author !== 'team' || last.status !== 'failed') return false;
      if (c.waitingSince) await tx.cancelJobs(`handoff_reminder:${c.id}:${c.waitingSince}`);
      await tx.update<any>('conversations', c.id, { awaiting: null, waitingSince: null, remindedAt: null });
      return true;
    },
    { marks: ['conversations-upgraded-2', 'handoff-waits-timed-2'], migration: 26 },
  );

test(`a contact whose only answer was a team reply that failed, as 0.2.0 stored them, waits for a person after the upgrade (${BACKEND})`, async () => {
  // No receiver of the custom channel's replies: every reply fails at once.
  await clinicGateway();
  await write('fay', 'I want to talk to a person');
  const reply = await v1('POST', `contacts/${contacts.fay}/messages`, { body: 'Hello Fay!' });
  expect(reply.body).toMatchObject({ status: 'failed', errorCode: 'NO_RECEIVER' });
  await write('gil', 'I want to talk to a person');
  await untilIdle(gw);
  const made = await readAll();
  const [gilMade, fayMade] = (made['&needsReply=true'] as any).data;
  expect([gilMade.contactId, fayMade.contactId]).toEqual([contacts.gil, contacts.fay]);
  // Timed in the hand-off's transaction, a moment after it.
  const afterHandoff = Date.parse(fayMade.waitingSince) - Date.parse(fayMade.handoff.at);
  expect(afterHandoff >= 0 && afterHandoff < 1000).toBe(true);

  expect(await gw.stop()).toBe(0);
  expect(await asReleaseTwoLeftThem()).toBe(1);
  gw = await startGateway({ ...env, LEADCHAT_LOG_LEVEL: 'info' }, gw.dataDir);
  expect(gw.output()).toContain(
    BACKEND === 'lowdb' ? 'conversations stored by an earlier release brought up to date' : '"version":26',
  );
  expect(gw.output()).toContain('contacts an earlier release left waiting for a person timed');

  // Fay still waits, from the hand-off, as if the reply had failed under this release; the team is reminded of her.
  const upgraded = await readAll();
  const [, fay] = (upgraded['&needsReply=true'] as any).data;
  expect(fay.contactId).toBe(contacts.fay);
  expect(fay.waitingSince).toBe(fay.handoff.at);
  // Else every read is as this release made it.
  const asMade = (c: any) => (c.id === fay.id ? { ...c, waitingSince: fayMade.waitingSince } : c);
  expect(
    Object.fromEntries(
      Object.entries(upgraded).map(([f, read]: [string, any]) => [f, { ...read, data: read.data.map(asMade) }]),
    ),
  ).toEqual(made);
  const pending = await request(gw, 'GET', '/admin/v1/jobs?status=pending&limit=200', {
    headers: { authorization: `Bearer ${gw.adminToken}` },
  });
  expect(pending.body.data.filter((j: any) => j.kind === 'handoff_reminder').map((j: any) => j.data)).toEqual(
    expect.arrayContaining([{ conversationId: fay.id, since: fay.waitingSince }]),
  );
});

/**
 * The conversations as 0.2.0 stored them: a bot's answer that failed for good was the conversation's last word, and
 * the bot kept it (no hand-off, no notice, no wait for a person); the upgrade since forgotten.
 */
const asReleaseTwoLeftFailedAnswers = () =>
  asReleaseLeftThem(
    async (tx, c) => {
      if (c.handoff?.reason !== 'reply_failed') return false;
      const said = await tx.find<any>('messages', 'contact', [c.contactId]);
      const answer = said.find((m) => m.author === 'bot');
      for (const m of said) if (m.author === 'system') await tx.remove('messages', m.id);
      if (c.waitingSince) await tx.cancelJobs(`handoff_reminder:${c.id}:${c.waitingSince}`);
      await tx.update<any>('conversations', c.id, {
        status: 'active',
        bot: { active: true },
        handoff: null,
        handoffNoticeAt: null,
        waitingSince: null,
        lastMessage: { ...c.lastMessage, id: answer.id, body: answer.body, author: 'bot', createdAt: answer.createdAt },
        awaiting: null,
        failed: 1,
      });
      return true;
    },
    { marks: ['failed-answers-handed-1'], migration: 99 },
  );

test(`a bot's answer 0.2.0 left failed as the conversation's last word goes to the team after the upgrade (${BACKEND})`, async () => {
  // No receiver of the custom channel's replies: the bot's answer fails at once.
  await clinicGateway(OPENING_HOURS);
  await write('hal', 'What are your opening hours?');
  expect(await gw.stop()).toBe(0);
  expect(await asReleaseTwoLeftFailedAnswers()).toBe(1);

  gw = await startGateway({ ...env, LEADCHAT_LOG_LEVEL: 'info' }, gw.dataDir);
  const before = (await readAll())[''] as any;
  expect(gw.output()).toContain("bots' answers an earlier release left failed handed to the team");
  await untilIdle(gw);
  const [hal] = ((await readAll())['&needsReply=true'] as any).data;
  expect(hal).toMatchObject({
    contactId: contacts.hal,
    status: 'handed_off',
    bot: { active: false },
    handoff: { reason: 'reply_failed', message: 'What are your opening hours?' },
    lastMessage: { author: 'system', body: HANDOFF_NOTICE, status: 'failed' },
    failed: 2,
  });
  // Waiting for a person from the hand-off, timed in its transaction, a moment after it.
  const afterHandoff = Date.parse(hal.waitingSince) - Date.parse(hal.handoff.at);
  expect(afterHandoff >= 0 && afterHandoff < 1000).toBe(true);
  expect(before.data.map((c: any) => c.id)).toEqual([hal.id]);

  // Once: a later start walks no more.
  expect(await gw.stop()).toBe(0);
  gw = await startGateway({ ...env, LEADCHAT_LOG_LEVEL: 'info' }, gw.dataDir);
  expect(gw.output()).not.toContain('left failed handed to the team');
});

/**
 * The openings as 0.2.0 stored them: one whose message failed (no credits) was settled `sent`, on its conversation
 * too, and no campaign kept a list of its failed openings; the walk since forgotten.
 */
const asReleaseTwoLeftFailedOpenings = () =>
  asReleaseLeftThem(
    async (tx, c) => {
      if (c.opening?.status !== 'failed') return false;
      const [opening] = await tx.find<any>('openings', 'member', [c.opening.campaignId, c.contactId]);
      await tx.update<any>('openings', opening.id, { status: 'sent' });
      await tx.remove('failed_openings', opening.messageId);
      // And timed the first follow-up from it.
      const runAt = Date.parse(c.lastMessage.createdAt) + 20 * 60_000;
      await tx.enqueue({
        kind: 'follow_up',
        data: { conversationId: c.id, step: 0 },
        runAt,
        key: `follow_up:${c.id}:0`,
        accountId: c.accountId,
        queue: 'default',
      });
      await tx.update<any>('conversations', c.id, {
        opening: { ...c.opening, status: 'sent' },
        next: { kind: 'follow_up', at: new Date(runAt).toISOString(), step: 0 },
        followUpFrom: c.lastMessage.createdAt,
      });
      return true;
    },
    { marks: ['failed-openings-1'], migration: 99 },
  );

test(`openings 0.2.0 left failed are counted and retried as the campaign's failed openings after the upgrade (${BACKEND})`, async () => {
  if (gw) {
    await gw.stop();
    removeDir(gw.dataDir);
  }
  gw = await startGateway(env);
  // A sub-account with no credits: each opening fails as it goes.
  const agency = await createAccount(gw, { type: 'agency', email: `agency-${process.pid}@example.com` });
  account = await createAccount(gw, { parentEmail: agency.email, email: `spring-${process.pid}@example.com` });
  const list = (await v1('POST', 'lists', { name: 'Leads' })).body;
  const campaign = await v1('POST', 'campaigns', {
    name: 'Spring',
    channel: 'sms',
    listId: list.id,
    openingMessage: 'Hi {{first_name|there}}, thanks for your interest!',
    triggerOnNewContacts: true,
    followUps: { enabled: true, steps: [{ after: '20m', body: 'Still there?' }] },
    status: 'live',
  });
  expect(campaign.status).toBe(201);
  const leads: string[] = [];
  for (const firstName of ['Ivy', 'Jon']) {
    const lead = (await v1('POST', 'contacts', { phone: uniquePhone(), firstName })).body;
    expect((await v1('POST', `lists/${list.id}/contacts`, { contactId: lead.id })).status).toBe(201);
    leads.push(lead.id);
  }
  await untilIdle(gw);
  const reads = async () => ({
    openings: (await v1('GET', `campaigns/${campaign.body.id}/openings`)).body,
    conversations: (await v1('GET', 'conversations?limit=200')).body,
  });
  const made = await reads();
  expect(made.conversations.data.map((c: any) => [c.opening.status, c.next])).toEqual([
    ['failed', null],
    ['failed', null],
  ]);

  expect(await gw.stop()).toBe(0);
  expect(await asReleaseTwoLeftFailedOpenings()).toBe(2);
  gw = await startGateway({ ...env, LEADCHAT_LOG_LEVEL: 'info' }, gw.dataDir);
  await untilIdle(gw);
  expect(gw.output()).toContain("every opening an earlier release left failed is among its campaign's failed openings");
  // The campaign's page counts them, and each conversation says its opening failed and asks no "Still there?" of a
  // lead who got nothing, as this release made them.
  expect(await reads()).toEqual(made);

  // Topped up, the campaign's retry sends them.
  const topUp = await request(gw, 'POST', '/v1/subaccounts/credits', {
    apiKey: agency.apiKey,
    body: { email: account.email, amount: 10 },
  });
  expect(topUp.status).toBe(200);
  const retried = await v1('POST', `campaigns/${campaign.body.id}/openings/retry-failed`);
  expect(retried.body.retried).toHaveLength(2);
  await untilIdle(gw);
  for (const lead of leads) {
    const said = (await v1('GET', `contacts/${lead}/messages`)).body.data as any[];
    expect(said.map((m) => [m.direction, m.status])).toEqual([['outgoing', 'sent']]);
  }
  // Their follow-ups are timed from the retry that reached them.
  const followed = (await v1('GET', 'conversations?limit=200')).body.data as any[];
  expect(followed.map((c) => c.next)).toEqual([
    expect.objectContaining({ kind: 'follow_up', step: 0 }),
    expect.objectContaining({ kind: 'follow_up', step: 0 }),
  ]);
});
