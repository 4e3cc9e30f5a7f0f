import path from 'node:path';
import { consoleAccount, teamMember, withSession } from '../console/support';
import { clockOf } from '../helpers/gateway';
import { type Traces } from '../helpers/traces';
import { openStoreOf } from '../helpers/stopped-store';
import { whatsapp } from '../helpers/provider-accounts';
import {
  api,
  clinicCampaign,
  dataUri,
  png,
  Receiver,
  uniquePhone,
  type TestAccount,
  type TestGateway,
} from './api-support';
import { gatewayModule } from '../helpers/gateway-modules';

/** What the tests of an account's deletion give an account to delete, and how they look for what is left of it. */

const dist = path.resolve(__dirname, '../../gateway/dist');

export interface Life {
  account: TestAccount;
  contactId: string;
  member: Awaited<ReturnType<typeof teamMember>>;
  /** The receiver of its webhook subscription, which fails every delivery: one waits to be tried again. */
  failing: Receiver;
  /** What of the account must be found before its deletion and never after. */
  traces: Traces;
}

/**
 * An account with something of everything: a contact on a list, a campaign, a conversation with messages and a kept
 * file, snoozed for a day (its wake-up waits in the job queue), a note, a saved reply, a webhook subscription whose
 * receiver fails (its delivery waits to be tried again), and a member signed in to the console. `tag` makes its words
 * its own; `account` is made a standard one unless given (a sub-account). The receiver is the caller's to close.
 */
export async function live(gw: TestGateway, tag: string, account?: TestAccount): Promise<Life> {
  account ??= await consoleAccount(gw);
  const failing = await Receiver.start(() => ({ status: 500 }));
  expect(
    (await api(gw, account, 'POST', 'webhooks', { body: { url: failing.url, events: ['message_received'] } })).status,
  ).toBe(201);
  expect((await api(gw, account, 'PUT', 'channels/whatsapp', { body: whatsapp })).status).toBe(200);
  const contact = (
    await api(gw, account, 'POST', 'contacts', {
      body: { firstName: `Wilhelmina${tag}`, phone: uniquePhone(), customFields: { ward: `ward-${tag}-7` } },
    })
  ).body;
  const list = (await api(gw, account, 'POST', 'lists', { body: { name: `Patients ${tag}` } })).body;
  expect(
    (await api(gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: contact.id } })).status,
  ).toBe(201);
  await clinicCampaign(gw, account);
  const file = png(12 + tag.length, 12);
  const chat = await api(gw, account, 'POST', 'incoming_custom_channel_message', {
    body: {
      customData: {
        messageSid: `sid-${tag}-${Date.now()}`,
        fromId: `visitor-${tag}`,
        toId: 'clinic',
        body: `my scan BRAMBLE-${tag}`,
        mediaUrl: dataUri('image/png', file),
        mediaContentType: 'image/png',
        channel: 'web-chat',
      },
    },
  });
  expect(chat.status).toBe(200);
  const { conversationId, contactId } = (await api(gw, account, 'GET', `messages/${chat.body.messageId}`)).body;
  expect(
    (
      await api(gw, account, 'POST', `contacts/${contactId}/messages`, {
        body: { body: `see you at THISTLE-${tag}` },
        headers: { 'Idempotency-Key': `reply-${tag}` },
      })
    ).status,
  ).toBe(201);
  // Nothing takes the chat's replies: the contact still waits, until the bot has the conversation again.
  expect((await api(gw, account, 'POST', `contacts/${contactId}/bot`, { body: { active: true } })).status).toBe(200);
  const until = new Date(clockOf(gw) + 24 * 60 * 60_000).toISOString();
  expect((await api(gw, account, 'POST', `conversations/${conversationId}/snooze`, { body: { until } })).status).toBe(
    200,
  );
  expect(
    (await api(gw, account, 'POST', `conversations/${conversationId}/notes`, { body: { text: `HEATHER-${tag}` } }))
      .status,
  ).toBe(201);
  expect(
    (await api(gw, account, 'POST', 'saved-replies', { body: { name: `Hours ${tag}`, text: `JUNIPER-${tag}` } }))
      .status,
  ).toBe(201);
  const member = await teamMember(gw, account, 'agent');
  expect((await withSession(gw, member, 'GET', '/v1/conversations')).status).toBe(200);
  await failing.waitFor(1);
  return {
    account,
    contactId,
    member,
    failing,
    traces: {
      'contact name': `Wilhelmina${tag}`,
      'custom field': `ward-${tag}-7`,
      'list name': `Patients ${tag}`,
      'chat text': `BRAMBLE-${tag}`,
      'team reply': `THISTLE-${tag}`,
      'team note': `HEATHER-${tag}`,
      'saved reply': `JUNIPER-${tag}`,
      'account email': account.email,
      file,
    },
  };
}

/**
 * The documents of the stopped gateway's store that name `accountId`, but the record of its deletion and those `kept`
 * says stay (an agency's credit history naming its deleted sub-account).
 */
export async function naming(
  gw: TestGateway,
  accountId: string,
  kept: (collection: string, doc: Record<string, unknown>) => boolean = () => false,
): Promise<string[]> {
  const { collections } = (await gatewayModule(path.join(dist, 'domain/collections.js'))) as {
    collections: Array<{ name: string }>;
  };
  const store = await openStoreOf(gw.env);
  try {
    const hits: string[] = [];
    for (const { name } of collections) {
      if (name === 'account_deletions') continue;
      for (const doc of await store.scan(name))
        if (JSON.stringify(doc).includes(accountId) && !kept(name, doc as unknown as Record<string, unknown>))
          hits.push(`${name}/${doc.id}`);
    }
    for (const status of ['pending', 'running', 'dead'] as const)
      for (const job of await store.jobs.list(status)) if (job.accountId === accountId) hits.push(`job ${job.kind}`);
    return hits;
  } finally {
    await store.close();
  }
}
