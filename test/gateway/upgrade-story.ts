import { request, untilIdle, type TestGateway } from '../helpers/gateway';
import { plainRequest } from '../helpers/release';

/**
 * One account's story, told through the API alone so that any release can tell it: a list, a campaign whose FAQ bot
 * answers on a custom channel, and contacts who ask it something, ask for a person (some answered by the team, one
 * read), opt out or ask for help. Then every read of it, as this release answers them, with ids and times made
 * comparable: the same story told by two releases reads the same.
 */

export interface Story {
  apiKey: string;
  listId: string;
  campaignId: string;
  contactIds: string[];
}

const CHANNEL = 'web-chat';
/** Who writes, and what: the same in every telling. */
const VISITORS: Array<{ name: string; says: string[]; listed?: boolean }> = [
  { name: 'Ada', says: ['What are your opening hours?'], listed: true },
  // Six who ask for a person: the conversations 0.1.0's data lost from needsReply.
  { name: 'Ben', says: ['I want to talk to a person'], listed: true },
  { name: 'Cleo', says: ['Can I speak to a human please'], listed: true },
  { name: 'Dan', says: ['talk to someone'] },
  { name: 'Eve', says: ['What are your opening hours?', 'I want to speak to a person'] },
  { name: 'Finn', says: ['agent'] },
  { name: 'Gus', says: ['I want to talk to a person'] },
  // Asks for a person and is answered by the team.
  { name: 'Hana', says: ['I want to talk to a person'], listed: true },
  { name: 'Ivo', says: ['STOP'] },
  { name: 'Jo', says: ['HELP'] },
];
const TEAM_ANSWERS = 'Hana';
const READ_BY_TEAM = 'Cleo';

type Call = (method: string, pathname: string, body?: unknown) => Promise<{ status: number; body: any }>;

function caller(gw: TestGateway, apiKey: string): Call {
  return (method, pathname, body) => plainRequest(gw, method, `/v1/${pathname}`, { apiKey }, body);
}

async function expectStatus(call: Promise<{ status: number; body: any }>, ...ok: number[]): Promise<any> {
  const res = await call;
  if (!ok.includes(res.status)) throw new Error(`the story stopped: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Tells the story on `gw` (any release), the custom channel's messages going to `outbox`. */
export async function tellStory(gw: TestGateway, outbox: string): Promise<Story> {
  const account = await expectStatus(
    plainRequest(
      gw,
      'POST',
      '/admin/v1/accounts',
      { admin: gw.adminToken },
      { name: 'Clinic', email: 'owner@clinic.example', type: 'standard' },
    ),
    201,
  );
  const call = caller(gw, account.apiKey);
  await expectStatus(
    call('PUT', 'settings', {
      customChannelWebhookUrl: outbox,
      helpText: 'Write to us any time, we answer within a day.',
    }),
    200,
  );
  const list = await expectStatus(call('POST', 'lists', { name: 'Spring leads' }), 201);
  const campaign = await expectStatus(
    call('POST', 'campaigns', {
      name: 'Check-ups',
      channel: 'custom',
      customChannel: CHANNEL,
      bot: {
        faqs: [
          { question: 'What are your opening hours?', answer: 'We are open 9 to 5, Monday to Friday.' },
          { question: 'Where are you?', answer: 'At 12 Harbour Street.' },
        ],
      },
    }),
    201,
  );
  await expectStatus(call('PUT', 'settings/bot', { defaultCampaignId: campaign.id }), 200);
  const contactIds: string[] = [];
  for (const [i, visitor] of VISITORS.entries()) {
    const contact = await expectStatus(
      call('POST', 'contacts', {
        firstName: visitor.name,
        phone: `+1415555${String(1000 + i)}`,
        email: `${visitor.name.toLowerCase()}@example.com`,
        externalIds: { [CHANNEL]: `visitor-${visitor.name.toLowerCase()}` },
      }),
      201,
    );
    contactIds.push(contact.id);
    if (visitor.listed) await expectStatus(call('POST', `lists/${list.id}/contacts`, { contactId: contact.id }), 201);
  }
  for (const visitor of VISITORS) {
    for (const [n, body] of visitor.says.entries()) {
      await expectStatus(
        call('POST', 'incoming_custom_channel_message', {
          customData: {
            messageSid: `sid-${visitor.name.toLowerCase()}-${n}`,
            fromId: `visitor-${visitor.name.toLowerCase()}`,
            toId: 'clinic',
            channel: CHANNEL,
            body,
          },
        }),
        200,
      );
      await untilIdle(gw);
    }
  }
  const idOf = (name: string) => contactIds[VISITORS.findIndex((v) => v.name === name)]!;
  await expectStatus(
    call('POST', `contacts/${idOf(TEAM_ANSWERS)}/messages`, { body: 'Hello Hana, how can I help?' }),
    201,
  );
  // Found among all: an earlier release may not filter by contact.
  const conversations = (await expectStatus(call('GET', 'conversations?limit=200'), 200)).data as any[];
  const read = conversations.find((c) => c.contactId === idOf(READ_BY_TEAM));
  await expectStatus(call('POST', `conversations/${read.id}/read`), 200, 204);
  await untilIdle(gw);
  return { apiKey: account.apiKey, listId: list.id, campaignId: campaign.id, contactIds };
}

/** The conversations' filters an inbox reads with, and the lists' and campaigns' reads. */
const CONVERSATION_FILTERS = [
  '',
  '&needsReply=true',
  '&needsReply=false',
  '&status=active',
  '&status=handed_off',
  '&status=opted_out',
  '&status=closed',
  '&channel=custom',
  '&failed=true',
  '&assigneeId=none',
];

/** Every read of the story, by what was asked, through this release's API (its answers held to its document). */
export async function readStory(gw: TestGateway, story: Story): Promise<Record<string, unknown>> {
  const reads: Record<string, unknown> = {};
  const read = async (pathname: string) => {
    const res = await request(gw, 'GET', `/v1/${pathname}`, { apiKey: story.apiKey });
    reads[pathname] = { status: res.status, body: res.body };
    return res.body;
  };
  await read('settings');
  await read('settings/bot');
  await read('credits');
  await read('webhooks');
  await read('members');
  await read('lists?limit=200');
  await read(`lists/${story.listId}`);
  await read(`lists/${story.listId}/contacts?limit=200`);
  await read('campaigns?limit=200');
  await read(`campaigns/${story.campaignId}`);
  await read(`campaigns/${story.campaignId}/funnel`);
  await read(`campaigns/${story.campaignId}/unanswered?limit=200`);
  for (const filter of CONVERSATION_FILTERS) await read(`conversations?limit=200${filter}`);
  await read(`conversations?limit=200&campaignId=${story.campaignId}`);
  for (const contactId of story.contactIds) {
    await read(`contacts/${contactId}`);
    await read(`contacts/${contactId}/messages?limit=200`);
    const { data } = (await read(`conversations?limit=200&contactId=${contactId}`)) as { data: Array<{ id: string }> };
    for (const { id } of data) await read(`conversations/${id}`);
  }
  return comparable(reads);
}

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const ID = /^([a-z]{2,3})_[A-Za-z0-9]{20,23}$/;

/**
 * The reads with what differs between two tellings of one story by nature taken out: ids, named in the order they
 * are first met; times; cursors; the account's webhook secret. Everything else (which conversations a filter finds, what each says) stays.
 */
export function comparable(reads: Record<string, unknown>): Record<string, unknown> {
  const names = new Map<string, string>();
  const name = (id: string, prefix: string) => {
    let named = names.get(id);
    if (!named) names.set(id, (named = `<${prefix} ${names.size + 1}>`));
    return named;
  };
  const walk = (value: unknown, key?: string): unknown => {
    if (typeof value === 'string') {
      if (key === 'nextCursor') return '<cursor>';
      if (key === 'webhookSecret') return '<secret>';
      if (TIME.test(value)) return '<time>';
      const id = ID.exec(value);
      return id
        ? name(value, id[1]!)
        : value.replace(/\b([a-z]{2,3})_[A-Za-z0-9]{20,23}\b/g, (m, p: string) => name(m, p));
    }
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    return value;
  };
  // The keys themselves name ids (a contact's reads): renamed too, in order.
  return Object.fromEntries(Object.entries(reads).map(([k, v]) => [walk(k) as string, walk(v)]));
}
