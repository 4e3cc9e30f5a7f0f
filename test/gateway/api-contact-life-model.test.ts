import fc from 'fast-check';
import { listAll } from '../helpers/gateway';
import {
  advanceClock,
  api,
  createAccount,
  HANDOFF_NOTICE,
  unique,
  untilIdle,
  useGateway,
  type Reply,
  type TestAccount,
} from './api-support';

/**
 * A contact's whole life with its features in any order: random sequences of creations, corrections, merges,
 * erasures (of a person who said STOP among them), messages from custom channels (STOP, START and a request for a
 * person among them) and reactions, team replies, a person taking the conversations over or giving them back to the bot, imports, list changes (the list's Live campaign sending each new member its opening, at once or after a
 * delay) and days passing (its follow-ups, and the closing of a conversation left unanswered), drawn from small pools
 * of phones, emails and external IDs so that they collide. Whatever the order, every answer is one the API documents
 * (never a 500), and afterwards what each feature promises the others still holds: one contact per phone and per
 * external ID, and per email among the contacts known by their email alone; lookups and search finding it; one
 * opening per contact; follow-ups only to the list's members who have not written since; nothing waiting for a
 * contact who opted out (no opening, no follow-up), whose conversations
 * are all opted out; a conversation handed to the team by the contact's message told the contact so and waits for a
 * person, with its bot silent; and no list, conversation or message left pointing at a contact that is gone.
 */

const ctx = useGateway();

const PHONES = ['+14155550101', '+14155550102', '+14155550103'];
const EMAILS = ['ana@example.com', 'ben@example.com', 'cyd@example.com'];
const IDS = ['visitor-one', 'visitor-two', 'visitor-three'];
const LABELS = ['webchat', 'crm'];

type Op =
  | { op: 'create'; phone?: string; email?: string; id?: [string, string] }
  | { op: 'patch'; who: number; phone?: string | null; email?: string | null; id?: [string, string | null] }
  | { op: 'merge'; who: number; other: number }
  | { op: 'erase'; who: number }
  | { op: 'forget'; fromId: string; label: string }
  | { op: 'incoming'; fromId: string; label: string; body: string }
  | { op: 'react'; fromId: string; label: string }
  | { op: 'import'; phone?: string; email?: string; id?: [string, string] }
  | { op: 'reply'; who: number }
  | { op: 'bot'; who: number; active: boolean }
  | { op: 'join'; who: number; delay?: string }
  | { op: 'leave'; who: number }
  | { op: 'wait' };

const who = fc.nat({ max: 7 });
const label = fc.constantFrom(...LABELS);
const externalId = fc.tuple(label, fc.constantFrom(...IDS));
const ops: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record(
        {
          op: fc.constant('create' as const),
          phone: fc.constantFrom(...PHONES),
          email: fc.constantFrom(...EMAILS),
          id: externalId,
        },
        { requiredKeys: ['op'] },
      ),
    },
    {
      weight: 3,
      arbitrary: fc.record(
        {
          op: fc.constant('patch' as const),
          who,
          phone: fc.option(fc.constantFrom(...PHONES)),
          email: fc.option(fc.constantFrom(...EMAILS)),
          id: fc.tuple(label, fc.option(fc.constantFrom(...IDS))),
        },
        { requiredKeys: ['op', 'who'] },
      ),
    },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('merge' as const), who, other: who }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('erase' as const), who }) },
    {
      // A person says STOP and asks to be forgotten: the ID is held opted out for whoever comes with it next.
      weight: 1,
      arbitrary: fc.record({ op: fc.constant('forget' as const), fromId: fc.constantFrom(...IDS), label }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        op: fc.constant('incoming' as const),
        fromId: fc.constantFrom(...PHONES, ...EMAILS, ...IDS),
        label,
        // Opting out and in again: consent follows the contact through merges and erasures; asking for a person.
        body: fc.constantFrom('hello', 'hello', 'STOP', 'START', 'a human please'),
      }),
    },
    // A reaction to what the business sent: the lead engaging, asking nothing.
    {
      weight: 1,
      arbitrary: fc.record({ op: fc.constant('react' as const), fromId: fc.constantFrom(...PHONES, ...IDS), label }),
    },
    {
      weight: 1,
      arbitrary: fc.record(
        {
          op: fc.constant('import' as const),
          phone: fc.constantFrom(...PHONES),
          email: fc.constantFrom(...EMAILS),
          id: externalId,
        },
        { requiredKeys: ['op'] },
      ),
    },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('reply' as const), who }) },
    // A person takes the contact's conversations over, or gives them back to the bot.
    { weight: 1, arbitrary: fc.record({ op: fc.constant('bot' as const), who, active: fc.boolean() }) },
    {
      weight: 2,
      arbitrary: fc.record(
        { op: fc.constant('join' as const), who, delay: fc.constant('1h') },
        { requiredKeys: ['op', 'who'] },
      ),
    },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('leave' as const), who }) },
    // A day passes: the campaign's follow-ups go to whoever has not answered, and the last one closes.
    { weight: 2, arbitrary: fc.record({ op: fc.constant('wait' as const) }) },
  ),
  { minLength: 1, maxLength: 16 },
);

/** The statuses each step may answer: a refusal is a documented answer, a 500 never is. */
const ANSWERS: Record<Op['op'], number[]> = {
  create: [200, 201, 409],
  patch: [200, 400, 404, 409],
  merge: [200, 400, 404],
  erase: [204, 404],
  forget: [204],
  incoming: [200],
  react: [200],
  import: [202],
  reply: [201, 404, 409],
  bot: [200, 404],
  join: [200, 201, 404],
  leave: [204, 404],
  wait: [200],
};

interface Message {
  contactId: string;
  conversationId: string;
  body: string;
  createdAt: string;
}

interface Contact {
  id: string;
  phone: string;
  email: string;
  fromId?: string;
  externalIds?: Record<string, string>;
  optOut?: { at: string } | null;
  optIn?: { at: string } | null;
}

/** A new contact's fields as a step gives them; one given none is known by an external ID of its own. */
const contactOf = (step: { phone?: string; email?: string; id?: [string, string] }) => ({
  ...(step.phone && { phone: step.phone }),
  ...(step.email && { email: step.email }),
  ...(step.id && { externalIds: { [step.id[0]]: step.id[1] } }),
  ...(!step.phone && !step.email && !step.id && { externalIds: { crm: unique('crm') } }),
});

/** An incoming custom channel message from `fromId` on channel `label`. */
const message = (step: { fromId: string; label: string; body: string }) => ({
  customData: { messageSid: unique('sid'), fromId: step.fromId, toId: 'clinic', body: step.body, channel: step.label },
});

/** Runs one sequence on an account of its own; answers the ids of every contact it saw. */
async function run(account: TestAccount, listId: string, steps: Op[]): Promise<string[]> {
  const seen: string[] = [];
  const call = (method: string, path: string, body?: unknown) => api(ctx.gw, account, method, path, { body });
  const pick = (n: number) => (seen.length ? seen[n % seen.length]! : 'ct_none');
  const note = (res: Reply) => {
    if (res.status < 300 && typeof res.body?.id === 'string' && !seen.includes(res.body.id)) seen.push(res.body.id);
  };
  for (const step of steps) {
    let res: Reply;
    switch (step.op) {
      case 'create':
        res = await call('POST', 'contacts', contactOf(step));
        note(res);
        break;
      case 'patch':
        res = await call('PATCH', `contacts/${pick(step.who)}`, {
          ...(step.phone !== undefined && { phone: step.phone }),
          ...(step.email !== undefined && { email: step.email }),
          ...(step.id && { externalIds: { [step.id[0]]: step.id[1] } }),
        });
        break;
      case 'merge':
        res = await call('POST', `contacts/${pick(step.who)}/merge`, { contactId: pick(step.other) });
        break;
      case 'erase':
        res = await call('DELETE', `contacts/${pick(step.who)}`);
        break;
      case 'incoming': {
        res = await call('POST', 'incoming_custom_channel_message', message(step));
        const written = await call('GET', `messages/${res.body?.messageId}`);
        if (written.status === 200) note({ ...written, body: { id: written.body.contactId } });
        break;
      }
      case 'react': {
        res = await call('POST', 'incoming_custom_channel_message', {
          messageType: 'reaction',
          ...message({ ...step, body: '👍' }),
        });
        const written = await call('GET', `messages/${res.body?.messageId}`);
        if (written.status === 200) note({ ...written, body: { id: written.body.contactId } });
        break;
      }
      case 'forget': {
        const said = await call('POST', 'incoming_custom_channel_message', message({ ...step, body: 'STOP' }));
        const written = await call('GET', `messages/${said.body?.messageId}`);
        res = await call('DELETE', `contacts/${written.body?.contactId}`);
        break;
      }
      case 'import': {
        // One row, applied by the import's job before the next step; its contact is found on the list.
        res = await call('POST', `lists/${listId}/imports`, {
          contacts: [contactOf(step)],
        });
        await untilIdle(ctx.gw);
        for (const member of await all<Contact>(account, `/lists/${listId}/contacts`)) note({ ...res, body: member });
        break;
      }
      case 'reply':
        res = await call('POST', `contacts/${pick(step.who)}/messages`, { body: 'A person here: how can I help?' });
        break;
      case 'bot':
        res = await call('POST', `contacts/${pick(step.who)}/bot`, { active: step.active });
        break;
      case 'join':
        // The list's Live campaign sends each new member its opening (now, or after the delay).
        res = await call('POST', `lists/${listId}/contacts`, {
          contactId: pick(step.who),
          ...(step.delay && { delay: step.delay }),
        });
        await untilIdle(ctx.gw);
        break;
      case 'leave':
        res = await call('DELETE', `lists/${listId}/contacts/${pick(step.who)}`);
        break;
      case 'wait':
        await advanceClock(ctx.gw, '1d');
        await untilIdle(ctx.gw);
        res = { status: 200 } as Reply;
        break;
    }
    const status = res.status;
    expect({ step, status, documented: ANSWERS[step.op].includes(status) }).toEqual({ step, status, documented: true });
  }
  return seen;
}

/** Every item of a list endpoint of the account, typed. */
const all = async <T>(account: TestAccount, pathname: string, query = ''): Promise<T[]> =>
  (await listAll(ctx.gw, account.apiKey, pathname, query)) as T[];

/** What every feature promises the others, read through the API. */
async function expectConsistent(account: TestAccount, listId: string, seen: string[]): Promise<void> {
  const read = await Promise.all(seen.map((id) => api(ctx.gw, account, 'GET', `contacts/${id}`)));
  for (const res of read) expect([200, 404]).toContain(res.status);
  const live = read.filter((r) => r.status === 200).map((r) => r.body as Contact);
  const liveIds = new Set(live.map((c) => c.id));
  const idsOf = (c: Contact) => new Set([...Object.values(c.externalIds ?? {}), ...(c.fromId ? [c.fromId] : [])]);

  // Each contact can still be reached. A phone or an external ID belongs to one contact; an email to one of those
  // known by their email alone (contacts with a phone may share one: a household's).
  for (const c of live)
    expect({ c, reachable: Boolean(c.phone || c.email || idsOf(c).size) }).toEqual({ c, reachable: true });
  // The consent record says what the gateway does: an opted-out contact's latest word was a STOP.
  for (const c of live.filter((c) => c.optOut && c.optIn))
    expect({ c: c.id, startAfterStop: c.optIn!.at > c.optOut!.at }).toEqual({ c: c.id, startAfterStop: false });
  const emailOnly = live.filter((c) => c.email && !c.phone && !idsOf(c).size);
  for (const [field, values] of [
    ['phone', live.map((c) => c.phone).filter(Boolean)],
    ['external ID', live.flatMap((c) => [...idsOf(c)])],
    ['email of a contact known by it alone', emailOnly.map((c) => c.email)],
  ] as const)
    expect({ field, values: [...values].sort() }).toEqual({ field, values: [...new Set(values)].sort() });

  // A lookup finds a contact holding the phone or email, and nothing when none does.
  for (const value of PHONES) {
    const holder = live.find((c) => c.phone === value);
    const res = await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: value } });
    expect({ value, status: res.status, id: res.body?.id }).toEqual({
      value,
      status: holder ? 200 : 404,
      id: holder?.id,
    });
  }
  for (const value of EMAILS) {
    const holders = live.filter((c) => c.email === value).map((c) => c.id);
    const res = await api(ctx.gw, account, 'GET', 'contacts', { query: { email: value } });
    expect({ value, status: res.status, found: holders.includes(res.body?.id) }).toEqual({
      value,
      status: holders.length ? 200 : 404,
      found: holders.length > 0,
    });
  }
  // Search by an external ID finds its holder, and never a contact that is gone.
  for (const value of IDS) {
    const found = (await all<Contact>(account, '/contacts', `&q=${value}`)).map((c) => c.id);
    const holder = live.find((c) => idsOf(c).has(value));
    expect({ value, gone: found.filter((id) => !liveIds.has(id)) }).toEqual({ value, gone: [] });
    if (holder) expect({ value, found }).toEqual({ value, found: expect.arrayContaining([holder.id]) });
  }

  // Lists, conversations and messages point only at contacts that are here, each once.
  const members = (await all<Contact>(account, `/lists/${listId}/contacts`)).map((c) => c.id);
  expect({ members: members.filter((id) => !liveIds.has(id)), twice: members.length - new Set(members).size }).toEqual({
    members: [],
    twice: 0,
  });
  const conversations = await all<{
    id: string;
    contactId: string;
    channel: string;
    customChannel: string | null;
    status: string;
    opening: { status: string; reason?: string | null } | null;
    next: { kind: string } | null;
    handoff: { reason: string; at: string } | null;
    bot: { active: boolean };
    needsReply: boolean;
    lastMessage: { author: string | null; direction: string } | null;
  }>(account, '/conversations');
  expect(conversations.filter((c) => !liveIds.has(c.contactId))).toEqual([]);
  const channels = conversations.map((c) => `${c.contactId} ${c.channel}:${c.customChannel ?? ''}`);
  expect(channels.sort()).toEqual([...new Set(channels)].sort());
  // The list's campaign follows up its members only, and only while the contact's message is not the latest: one
  // taken off the list, or who wrote or reacted, is followed up no more, and no conversation names a follow-up that
  // nothing will send.
  for (const v of conversations.filter((v) => v.next?.kind === 'follow_up' || v.next?.kind === 'close')) {
    expect({ v: v.id, member: members.includes(v.contactId), last: v.lastMessage?.direction }).toEqual({
      v: v.id,
      member: true,
      last: 'outgoing',
    });
  }
  // A campaign opens a conversation with a contact once; nothing waits to go to a contact who opted out.
  for (const c of live) {
    const opened = conversations.filter((v) => v.contactId === c.id && v.opening);
    const waiting = opened.filter((v) => v.opening!.status === 'queued' || v.opening!.status === 'held');
    expect({ c: c.id, opened: opened.length <= 1, waiting: c.optOut ? waiting.length : 0 }).toEqual({
      c: c.id,
      opened: true,
      waiting: 0,
    });
  }
  // An opted-out contact's conversations are all opted out (however it came to be: its STOP, a merge, an address
  // an erased contact opted out with, by a correction, a creation or an import), and only an opted-out contact's are.
  for (const c of live) {
    const theirs = conversations.filter((v) => v.contactId === c.id);
    const statuses = theirs.map((v) => v.status);
    const out = statuses.filter((status) => status === 'opted_out');
    const next = c.optOut ? theirs.map((v) => v.next).filter(Boolean) : [];
    expect({ c: c.id, optedOut: Boolean(c.optOut), out, next }).toEqual({
      c: c.id,
      optedOut: Boolean(c.optOut),
      out: c.optOut ? statuses : [],
      next: [],
    });
  }
  // Nobody in silence: a conversation the contact's message handed to the team told the contact so, and waits for a
  // person until one writes.
  for (const c of live) {
    const messages = await all<Message>(account, `/contacts/${c.id}/messages`);
    expect(messages.filter((m) => m.contactId !== c.id)).toEqual([]);
    for (const v of conversations.filter((v) => v.contactId === c.id && v.status === 'handed_off')) {
      // A person has it: the bot is silent there.
      expect({ v: v.id, bot: v.bot.active }).toEqual({ v: v.id, bot: false });
      if (v.handoff!.reason === 'team') continue;
      const told = messages.some(
        (m) => m.conversationId === v.id && m.body === HANDOFF_NOTICE && m.createdAt >= v.handoff!.at,
      );
      const waits = v.needsReply || v.lastMessage?.author === 'team';
      expect({ v: v.id, reason: v.handoff!.reason, told, waits }).toEqual({
        v: v.id,
        reason: v.handoff!.reason,
        told: true,
        waits: true,
      });
    }
  }
}

test('creations, corrections, merges, erasures, messages, replies, imports, list changes and days passing in any order keep one contact per phone and external ID, and nothing pointing at one gone', async () => {
  await fc.assert(
    fc.asyncProperty(ops, async (steps) => {
      const account = await createAccount(ctx.gw);
      const listId = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leads' } })).body.id;
      const campaign = await api(ctx.gw, account, 'POST', 'campaigns', {
        body: {
          name: 'Funnel',
          channel: 'sms',
          listId,
          openingMessage: 'Hi there, thanks for your interest!',
          triggerOnNewContacts: true,
          status: 'live',
          followUps: {
            enabled: true,
            steps: [
              { after: '1d', body: 'Still there?' },
              { after: '1d', body: 'Last call' },
            ],
          },
        },
      });
      expect(campaign.status).toBe(201);
      const seen = await run(account, listId, steps);
      await expectConsistent(account, listId, seen);
    }),
    {
      numRuns: 40,
      // Besides the random ones: a member followed up, then taken off the list.
      examples: [
        [
          [
            { op: 'create', phone: PHONES[0] },
            { op: 'join', who: 0 },
            { op: 'leave', who: 0 },
          ] as Op[],
        ],
      ],
    },
  );
}, 120_000);
