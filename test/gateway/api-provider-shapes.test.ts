import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import {
  api,
  createAccount,
  metaSignature,
  poll,
  Receiver,
  request,
  unique,
  uniquePhone,
  useGateway,
  type TestAccount,
} from './api-support';
import { jobsWithStatus, untilProcessed } from '../helpers/inbound';
import { messenger, whatsapp } from '../helpers/provider-accounts';

/**
 * Nothing a provider posts vanishes unsaid. A signed entry of a shape the provider does not send (a text that is not
 * text, a WhatsApp media id that is not an id) is answered as taken and becomes a dead job naming where it was and
 * why; a media id that is not one is never sent to Graph with the access token. An entry that carries nothing to keep
 * (an event with no field the gateway reads) is counted in /metrics and logged with where it was. The others of the
 * batch are stored. The same on both backends.
 */

const env: Record<string, string> = {
  LEADCHAT_JOB_POLL: '100ms',
  LEADCHAT_PUBLIC_URL: 'https://chat.example.test',
  LEADCHAT_LOG_LEVEL: 'warn',
};
let graph: Receiver;
beforeAll(async () => {
  // Graph stays on 127.0.0.1, and tells nothing: a profile it does not give leaves the contact unnamed.
  graph = await Receiver.start(() => ({
    status: 404,
    body: JSON.stringify({ error: { message: 'Unsupported get request', code: 100 } }),
  }));
  const base = graph.url.replace(/\/hook$/, '');
  Object.assign(env, { LEADCHAT_WHATSAPP_API_URL: `${base}/v23.0`, LEADCHAT_MESSENGER_API_URL: `${base}/v23.0` });
});
const ctx = useGateway(env);
afterAll(() => graph?.close());

async function accountWith(channel: 'whatsapp' | 'messenger'): Promise<TestAccount> {
  const account = await createAccount(ctx.gw);
  const credentials = channel === 'whatsapp' ? whatsapp : messenger;
  expect((await api(ctx.gw, account, 'PUT', `channels/${channel}`, { body: credentials })).status).toBe(200);
  return account;
}

function postMeta(account: TestAccount, channel: 'whatsapp' | 'messenger', body: object) {
  const text = JSON.stringify(body);
  const secret = channel === 'whatsapp' ? whatsapp.appSecret : messenger.appSecret;
  return request(ctx.gw, 'POST', `/v1/channels/${channel}/${account.id}/webhook`, {
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': metaSignature(secret, text) },
    body: text,
  });
}

/** The account's dead `inbound` jobs. */
const deadEntries = async (account: TestAccount) =>
  (await jobsWithStatus(ctx.gw, 'dead')).filter((job) => job.kind === 'inbound' && job.accountId === account.id);

/** The skipped-entries counter of /metrics for a provider and reason. */
async function skippedCount(provider: string, reason: string): Promise<number> {
  const res = await request(ctx.gw, 'GET', '/metrics', { headers: { authorization: `Bearer ${ctx.gw.adminToken}` } });
  expect(res.status).toBe(200);
  const family = parsePrometheusTextFormat(res.text).find((f) => f.name === 'leadchat_provider_entries_skipped_total');
  return Number(
    family?.metrics.find((s) => s.labels?.provider === provider && s.labels?.reason === reason)?.value ?? 0,
  );
}

/** The incoming texts of the account's conversations, by contact. */
async function written(account: TestAccount): Promise<string[]> {
  const conversations = (await api(ctx.gw, account, 'GET', 'conversations')).body.data as any[];
  const texts: string[] = [];
  for (const c of conversations) {
    const messages = (await api(ctx.gw, account, 'GET', `contacts/${c.contact.id}/messages?limit=200`)).body
      .data as any[];
    texts.push(...messages.filter((m) => m.direction === 'incoming').map((m) => m.body));
  }
  return texts.sort();
}

const psid = () => String(7_000_000_000_000_000 + Math.floor(Math.random() * 1e15));

test('Messenger: a text that is not text is a dead job saying where and why; an event with nothing the gateway reads is counted and logged; the good one is stored', async () => {
  const account = await accountWith('messenger');
  const event = (fields: object) => ({
    sender: { id: psid() },
    recipient: { id: messenger.pageId },
    timestamp: Date.now(),
    ...fields,
  });
  const wrong = event({ message: { mid: unique('mid'), text: 123 } });
  const before = await skippedCount('messenger', 'unreadable');
  const res = await postMeta(account, 'messenger', {
    object: 'page',
    entry: [
      {
        id: messenger.pageId,
        time: Date.now(),
        messaging: [wrong, event({ mystery: { anything: 1 } }), event({ message: { mid: unique('mid'), text: 'Hi' } })],
      },
    ],
  });
  expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { success: true } });
  await untilProcessed(ctx.gw);
  expect(await written(account)).toEqual(['Hi']);
  expect(await deadEntries(account)).toEqual([
    expect.objectContaining({
      attempts: 1,
      lastError: "entry[0].messaging[0].message.text: expected the message's text, a string",
      data: expect.objectContaining({
        provider: 'messenger',
        entry: expect.objectContaining({ where: 'entry[0].messaging[0]', raw: wrong }),
      }),
    }),
  ]);
  expect((await skippedCount('messenger', 'unreadable')) - before).toBe(1);
  const lines = await poll(
    async () =>
      ctx.gw
        .output()
        .split('\n')
        .filter((line) => line.includes('entry skipped') && line.includes(`"account":"${account.id}"`)),
    (found) => found.length >= 1,
  );
  expect(lines.map((line) => JSON.parse(line))).toEqual([
    expect.objectContaining({
      provider: 'messenger',
      reason: 'unreadable',
      where: 'entry[0].messaging[1]',
      detail: 'fields: mystery',
      msg: 'provider webhook entry skipped: nothing the gateway can read',
    }),
  ]);
});

test('WhatsApp: a media id of ".." is refused before any call to Graph, as a dead job saying where and why; the good message is stored', async () => {
  const account = await accountWith('whatsapp');
  const phone = uniquePhone();
  const message = (type: string, content: object) => ({
    from: phone.slice(1),
    id: unique('wamid'),
    timestamp: String(Math.floor(Date.now() / 1000)),
    type,
    [type]: content,
  });
  const calls = graph.requests.length;
  const res = await postMeta(account, 'whatsapp', {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { phone_number_id: whatsapp.phoneNumberId },
              contacts: [{ wa_id: phone.slice(1), profile: { name: 'Ana' } }],
              messages: [message('image', { id: '..', mime_type: 'image/png' }), message('text', { body: 'Hola' })],
            },
          },
        ],
      },
    ],
  });
  expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { success: true } });
  await untilProcessed(ctx.gw);
  expect(await written(account)).toEqual(['Hola']);
  expect(await deadEntries(account)).toEqual([
    expect.objectContaining({
      lastError: 'entry[0].changes[0].value.messages[0].image.id: ".." is not a WhatsApp media id (its digits)',
      data: expect.objectContaining({
        provider: 'whatsapp',
        entry: expect.objectContaining({ where: 'entry[0].changes[0].value.messages[0]' }),
      }),
    }),
  ]);
  // Graph hears at most of the gateway's answer to the contact (its hand-off notice): no media id is looked up.
  const asked = graph.requests.slice(calls).map((r) => `${r.method} ${r.path}`);
  expect(asked.filter((call) => call !== `POST /v23.0/${whatsapp.phoneNumberId}/messages`)).toEqual([]);
});
