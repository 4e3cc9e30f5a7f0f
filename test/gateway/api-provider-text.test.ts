import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import {
  api,
  createAccount,
  expectApiError,
  metaSignature,
  poll,
  Receiver,
  request,
  twilioSignature,
  unique,
  uniquePhone,
  untilIdle,
  useGateway,
  type TestAccount,
} from './api-support';
import { hex, instagram, messenger, twilio, whatsapp } from '../helpers/provider-accounts';

/**
 * Providers' webhooks judge text by the rule of /v1 (no NUL, no lone surrogate, nothing that is not UTF-8), but a
 * signed entry that breaks it is refused alone: logged once without its text, counted in /metrics, the others of its
 * batch stored, and the provider answered as usual so that it sends nothing again. The same on both backends.
 */
const PUBLIC_URL = 'https://chat.example.test';
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';
/** Written into every refused text: the log must never show it. */
const SECRET_WORDS = 'do-not-log-these-words';

const env: Record<string, string> = { LEADCHAT_JOB_POLL: '100ms', LEADCHAT_PUBLIC_URL: PUBLIC_URL };
let graph: Receiver;
beforeAll(async () => {
  // Meta's profiles and every provider API stay on 127.0.0.1: a profile Meta does not give leaves the contact unnamed.
  graph = await Receiver.start(() => ({
    status: 404,
    body: JSON.stringify({ error: { message: 'Unsupported get request', code: 100 } }),
  }));
  const base = graph.url.replace(/\/hook$/, '');
  Object.assign(env, {
    LEADCHAT_TWILIO_API_URL: base,
    LEADCHAT_WHATSAPP_API_URL: `${base}/v23.0`,
    LEADCHAT_MESSENGER_API_URL: `${base}/v23.0`,
    LEADCHAT_INSTAGRAM_API_URL: `${base}/v23.0`,
  });
});
const ctx = useGateway(env);
afterAll(() => graph?.close());

type Provider = 'twilio' | 'whatsapp' | 'messenger' | 'instagram';
type Reason = 'nul' | 'lone_surrogate' | 'not_utf8';

async function accountWith(channel: Provider): Promise<TestAccount> {
  const account = await createAccount(ctx.gw);
  const credentials = { twilio, whatsapp, messenger, instagram }[channel];
  expect((await api(ctx.gw, account, 'PUT', `channels/${channel}`, { body: credentials })).status).toBe(200);
  return account;
}

/** The refusal counter of /metrics, by provider and reason. */
async function refusedCounts(): Promise<(provider: Provider, reason: Reason) => number> {
  const res = await request(ctx.gw, 'GET', '/metrics', { headers: { authorization: `Bearer ${ctx.gw.adminToken}` } });
  expect(res.status).toBe(200);
  const family = parsePrometheusTextFormat(res.text).find((f) => f.name === 'leadchat_provider_entries_refused_total');
  return (provider, reason) =>
    Number(family?.metrics.find((s) => s.labels?.provider === provider && s.labels?.reason === reason)?.value ?? 0);
}

/** How much each (provider, reason) count grew while `act` ran. */
async function refusalsDuring(act: () => Promise<void>): Promise<(provider: Provider, reason: Reason) => number> {
  const before = await refusedCounts();
  await act();
  const after = await refusedCounts();
  return (provider, reason) => after(provider, reason) - before(provider, reason);
}

/** The warn lines the gateway logged about the account's refused entries, once `count` of them are in. */
async function refusalLines(account: TestAccount, count: number): Promise<Array<Record<string, unknown>>> {
  const read = async () =>
    ctx.gw
      .output()
      .split('\n')
      .filter((line) => line.includes('entry refused') && line.includes(`"account":"${account.id}"`));
  const lines = await poll(read, (found) => found.length >= count);
  expect(ctx.gw.output()).not.toContain(SECRET_WORDS);
  return lines.map((line) => JSON.parse(line));
}

function postMeta(
  account: TestAccount,
  channel: 'whatsapp' | 'messenger' | 'instagram',
  body: string | Buffer,
  secret: string,
) {
  return request(ctx.gw, 'POST', `/v1/channels/${channel}/${account.id}/webhook`, {
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': metaSignature(secret, body) },
    body,
  });
}

/**
 * A Twilio form as sent (`body`, percent-encoded by hand so that it may hold any byte), signed over `params`: the
 * form as the gateway reads it, as Twilio's own check does (an escape that decodes to no UTF-8 stays as written).
 */
function postTwilio(
  account: TestAccount,
  kind: 'incoming' | 'status',
  body: string | Buffer,
  params: Record<string, string>,
  token = twilio.authToken,
) {
  const path = `/v1/channels/twilio/${account.id}/${kind}`;
  return request(ctx.gw, 'POST', path, {
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': twilioSignature(token, PUBLIC_URL + path, params),
    },
    body,
  });
}

const psid = () => String(7_000_000_000_000_000 + Math.floor(Math.random() * 1e15));
const pageOf = (channel: 'messenger' | 'instagram') =>
  channel === 'messenger' ? messenger.pageId : instagram.instagramAccountId;
/** One messaging event of a contact, as Meta puts it in an entry's `messaging`. */
const metaEvent = (channel: 'messenger' | 'instagram', sender: string, fields: object) => ({
  sender: { id: sender },
  recipient: { id: pageOf(channel) },
  timestamp: Date.now(),
  ...fields,
});
const metaBatch = (channel: 'messenger' | 'instagram', ...entries: object[][]) => ({
  object: channel === 'messenger' ? 'page' : 'instagram',
  entry: entries.map((messaging) => ({ id: pageOf(channel), time: Date.now(), messaging })),
});

/**
 * The incoming messages of the contact known on a Meta channel by `id`, once the gateway has processed the entries it
 * took; undefined when there is no such contact.
 */
async function metaMessages(
  account: TestAccount,
  channel: 'messenger' | 'instagram',
  id: string,
): Promise<any[] | undefined> {
  await untilIdle(ctx.gw);
  const conversations = (await api(ctx.gw, account, 'GET', 'conversations')).body.data as any[];
  const conversation = conversations.find((c) => c.contact.externalIds?.[channel] === id);
  if (!conversation) return undefined;
  const messages = (await api(ctx.gw, account, 'GET', `contacts/${conversation.contact.id}/messages?limit=200`)).body
    .data as any[];
  return messages.filter((m) => m.direction === 'incoming');
}

/** The incoming messages of the contact with this phone number, once processed; undefined when there is no such contact. */
async function phoneMessages(account: TestAccount, phone: string): Promise<any[] | undefined> {
  await untilIdle(ctx.gw);
  const contact = await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } });
  if (contact.status === 404) return undefined;
  expect(contact.status).toBe(200);
  const messages = (await api(ctx.gw, account, 'GET', `contacts/${contact.body.id}/messages?limit=200`)).body
    .data as any[];
  return messages.filter((m) => m.direction === 'incoming');
}

describe('Messenger', () => {
  test('a batch with one entry whose text holds NUL and one good entry: 200, the good one stored, the bad one refused alone', async () => {
    const account = await accountWith('messenger');
    const [bad, good] = [psid(), psid()];
    const batch = metaBatch(
      'messenger',
      [metaEvent('messenger', bad, { message: { mid: unique('mid'), text: `Hello\u0000${SECRET_WORDS}` } })],
      [metaEvent('messenger', good, { message: { mid: unique('mid'), text: 'Is the flat still free?' } })],
    );
    let res: Awaited<ReturnType<typeof postMeta>> | undefined;
    const grew = await refusalsDuring(async () => {
      res = await postMeta(account, 'messenger', JSON.stringify(batch), messenger.appSecret);
    });
    expect({ status: res!.status, body: res!.body }).toEqual({ status: 200, body: { success: true } });
    expect((await metaMessages(account, 'messenger', good))?.map((m) => m.body)).toEqual(['Is the flat still free?']);
    expect(await metaMessages(account, 'messenger', bad)).toBeUndefined();
    expect(grew('messenger', 'nul')).toBe(1);
    const lines = await refusalLines(account, 1);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        provider: 'messenger',
        account: account.id,
        reason: 'nul',
        where: 'entry[0].messaging[0]',
      }),
    ]);

    // Meta sends the same batch again only when it was not taken; if it does, the good entry is not stored twice.
    expect((await postMeta(account, 'messenger', JSON.stringify(batch), messenger.appSecret)).status).toBe(200);
    expect(await metaMessages(account, 'messenger', good)).toHaveLength(1);
  });

  test('lone surrogates (JSON escapes) in a mid or a text, NUL in a postback title or a receipt: each event refused alone', async () => {
    const account = await accountWith('messenger');
    const lead = psid();
    const body = JSON.stringify(
      metaBatch('messenger', [
        metaEvent('messenger', lead, { message: { mid: `m_\ud800${SECRET_WORDS}`, text: 'first' } }),
        metaEvent('messenger', lead, { message: { mid: unique('mid'), text: `\udfff${SECRET_WORDS}` } }),
        metaEvent('messenger', lead, {
          postback: { mid: unique('mid'), title: `Book\u0000${SECRET_WORDS}`, payload: 'BOOK' },
        }),
        metaEvent('messenger', lead, { delivery: { mids: [`m_\u0000${SECRET_WORDS}`], watermark: Date.now() } }),
        metaEvent('messenger', lead, { message: { mid: unique('mid'), text: 'The good one' } }),
      ]),
    );
    // JSON.stringify writes a lone surrogate as its escape: the bytes sent are UTF-8.
    expect(body).toContain('\\ud800');
    let status = 0;
    const grew = await refusalsDuring(async () => {
      status = (await postMeta(account, 'messenger', body, messenger.appSecret)).status;
    });
    expect(status).toBe(200);
    expect((await metaMessages(account, 'messenger', lead))?.map((m) => m.body)).toEqual(['The good one']);
    expect([grew('messenger', 'lone_surrogate'), grew('messenger', 'nul')]).toEqual([2, 2]);
    const lines = await refusalLines(account, 4);
    expect(lines.map((l) => [l.where, l.reason]).sort()).toEqual([
      ['entry[0].messaging[0]', 'lone_surrogate'],
      ['entry[0].messaging[1]', 'lone_surrogate'],
      ['entry[0].messaging[2]', 'nul'],
      ['entry[0].messaging[3]', 'nul'],
    ]);
  });

  test('a body that is not UTF-8 cannot be split: the whole of it is refused and answered 200; a bad signature stays 403', async () => {
    const account = await accountWith('messenger');
    const [bad, good] = [psid(), psid()];
    const json = JSON.stringify(
      metaBatch(
        'messenger',
        [metaEvent('messenger', bad, { message: { mid: unique('mid'), text: `caf${SECRET_WORDS}` } })],
        [metaEvent('messenger', good, { message: { mid: unique('mid'), text: 'fine' } })],
      ),
    );
    const body = Buffer.from(json.replace(`caf${SECRET_WORDS}`, 'caf\xff'), 'latin1');
    let forged: Awaited<ReturnType<typeof postMeta>> | undefined;
    const refusedForged = await refusalsDuring(async () => {
      forged = await postMeta(account, 'messenger', body, hex('9'));
    });
    expectApiError(forged!, 403, 'INVALID_SIGNATURE');
    expect(refusedForged('messenger', 'not_utf8')).toBe(0);

    let res: Awaited<ReturnType<typeof postMeta>> | undefined;
    const grew = await refusalsDuring(async () => {
      res = await postMeta(account, 'messenger', body, messenger.appSecret);
    });
    expect({ status: res!.status, body: res!.body }).toEqual({ status: 200, body: { success: true } });
    expect(grew('messenger', 'not_utf8')).toBe(1);
    expect(await metaMessages(account, 'messenger', bad)).toBeUndefined();
    expect(await metaMessages(account, 'messenger', good)).toBeUndefined();
    expect(await refusalLines(account, 1)).toEqual([
      expect.objectContaining({ provider: 'messenger', account: account.id, reason: 'not_utf8', where: 'body' }),
    ]);
  });
});

test('Instagram: an event with a lone surrogate in a key is refused alone; the good event beside it is stored', async () => {
  const account = await accountWith('instagram');
  const [bad, good] = [psid(), psid()];
  const body = JSON.stringify(
    metaBatch('instagram', [
      metaEvent('instagram', bad, { message: { mid: unique('mid'), text: 'hi', [`\ud83d${SECRET_WORDS}`]: true } }),
      metaEvent('instagram', good, { message: { mid: unique('mid'), text: 'Do you ship to Lisbon?' } }),
    ]),
  );
  let status = 0;
  const grew = await refusalsDuring(async () => {
    status = (await postMeta(account, 'instagram', body, instagram.appSecret)).status;
  });
  expect(status).toBe(200);
  expect((await metaMessages(account, 'instagram', good))?.map((m) => m.body)).toEqual(['Do you ship to Lisbon?']);
  expect(await metaMessages(account, 'instagram', bad)).toBeUndefined();
  expect(grew('instagram', 'lone_surrogate')).toBe(1);
  expect(await refusalLines(account, 1)).toEqual([
    expect.objectContaining({
      provider: 'instagram',
      account: account.id,
      reason: 'lone_surrogate',
      where: 'entry[0].messaging[0]',
    }),
  ]);
});

test('WhatsApp Cloud: a message with NUL, one whose sender is named with NUL and a status with a lone surrogate are refused alone', async () => {
  const account = await accountWith('whatsapp');
  const [bad, badlyNamed, good] = [uniquePhone(), uniquePhone(), uniquePhone()];
  const at = String(Math.floor(Date.now() / 1000));
  const text = (phone: string, body: string) => ({
    from: phone.slice(1),
    id: unique('wamid'),
    timestamp: at,
    type: 'text',
    text: { body },
  });
  const change = (value: object) => ({
    field: 'messages',
    value: { messaging_product: 'whatsapp', metadata: { phone_number_id: whatsapp.phoneNumberId }, ...value },
  });
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA',
        changes: [
          change({
            contacts: [
              { wa_id: bad.slice(1), profile: { name: 'Ana' } },
              { wa_id: good.slice(1), profile: { name: 'Lucía' } },
            ],
            messages: [text(bad, `Hola\u0000${SECRET_WORDS}`), text(good, '¿Cuánto cuesta una limpieza?')],
            statuses: [
              { id: `wamid.\udc00${SECRET_WORDS}`, status: 'read', timestamp: at, recipient_id: good.slice(1) },
            ],
          }),
          change({
            contacts: [{ wa_id: badlyNamed.slice(1), profile: { name: `Lu\u0000${SECRET_WORDS}` } }],
            messages: [text(badlyNamed, 'Hola')],
          }),
        ],
      },
    ],
  });
  let status = 0;
  const grew = await refusalsDuring(async () => {
    status = (await postMeta(account, 'whatsapp', body, whatsapp.appSecret)).status;
  });
  expect(status).toBe(200);
  expect((await phoneMessages(account, good))?.map((m) => m.body)).toEqual(['¿Cuánto cuesta una limpieza?']);
  expect(await phoneMessages(account, bad)).toBeUndefined();
  expect(await phoneMessages(account, badlyNamed)).toBeUndefined();
  expect([grew('whatsapp', 'nul'), grew('whatsapp', 'lone_surrogate')]).toEqual([2, 1]);
  const lines = await refusalLines(account, 3);
  expect(lines.map((l) => [l.provider, l.where, l.reason]).sort()).toEqual([
    ['whatsapp', 'entry[0].changes[0].value.messages[0]', 'nul'],
    ['whatsapp', 'entry[0].changes[0].value.statuses[0]', 'lone_surrogate'],
    ['whatsapp', 'entry[0].changes[1].value.messages[0]', 'nul'],
  ]);

  // A WhatsApp body that is not UTF-8: refused whole, answered 200.
  const notUtf8 = Buffer.concat([
    Buffer.from(body.slice(0, 20)),
    Buffer.from([0xc3, 0x28]),
    Buffer.from(body.slice(20)),
  ]);
  let whole = 0;
  const grewWhole = await refusalsDuring(async () => {
    whole = (await postMeta(account, 'whatsapp', notUtf8, whatsapp.appSecret)).status;
  });
  expect(whole).toBe(200);
  expect(grewWhole('whatsapp', 'not_utf8')).toBe(1);
});

describe('Twilio', () => {
  const form = (phone: string, body: string) =>
    `MessageSid=SM${hex('e')}${unique('')}&From=${encodeURIComponent(phone)}&To=%2B15005550006&Body=${body}`;
  const paramsOf = (sent: string, body: string) => ({ ...Object.fromEntries(new URLSearchParams(sent)), Body: body });

  test('an incoming message with %00, with %FF or with a raw byte that is not UTF-8: empty TwiML, refused alone, nothing stored', async () => {
    const account = await accountWith('twilio');
    const cases: Array<{ phone: string; sent: string | Buffer; body: string; reason: Reason }> = [];
    const nul = uniquePhone();
    const nulForm = form(nul, `Hi%00${SECRET_WORDS}`);
    cases.push({ phone: nul, sent: nulForm, body: `Hi\u0000${SECRET_WORDS}`, reason: 'nul' });
    const escaped = uniquePhone();
    const escapedForm = form(escaped, `caf%FF${SECRET_WORDS}`);
    // The form parser leaves an escape that decodes to no UTF-8 as it was written, and Twilio's check signs that.
    cases.push({ phone: escaped, sent: escapedForm, body: `caf%FF${SECRET_WORDS}`, reason: 'not_utf8' });
    const raw = uniquePhone();
    const rawForm = form(raw, `caf${SECRET_WORDS}`);
    // A raw byte that is no UTF-8 is read as U+FFFD.
    cases.push({
      phone: raw,
      sent: Buffer.from(rawForm.replace(`caf${SECRET_WORDS}`, 'caf\xff'), 'latin1'),
      body: 'caf\ufffd',
      reason: 'not_utf8',
    });

    for (const { phone, sent, body, reason } of cases) {
      const text = Buffer.isBuffer(sent) ? sent.toString('latin1') : sent;
      const params = paramsOf(text.replace(/&Body=.*$/, ''), body);
      let res: Awaited<ReturnType<typeof postTwilio>> | undefined;
      const grew = await refusalsDuring(async () => {
        res = await postTwilio(account, 'incoming', sent, params);
      });
      expect({ status: res!.status, type: res!.headers['content-type'], text: res!.text }).toEqual({
        status: 200,
        type: expect.stringMatching(/^text\/xml/),
        text: EMPTY_TWIML,
      });
      expect(grew('twilio', reason)).toBe(1);
      expect(await phoneMessages(account, phone)).toBeUndefined();
    }
    const lines = await refusalLines(account, 3);
    expect(lines.map((l) => [l.provider, l.reason, l.where])).toEqual([
      ['twilio', 'nul', 'form'],
      ['twilio', 'not_utf8', 'form'],
      ['twilio', 'not_utf8', 'form'],
    ]);

    // A good message still goes in; a bad one with a forged signature stays 403 and is not counted.
    const good = uniquePhone();
    const goodForm = form(good, 'caf%C3%A9');
    expect((await postTwilio(account, 'incoming', goodForm, paramsOf(goodForm, 'café'))).text).toBe(EMPTY_TWIML);
    expect((await phoneMessages(account, good))?.map((m) => m.body)).toEqual(['café']);
    let forged: Awaited<ReturnType<typeof postTwilio>> | undefined;
    const grew = await refusalsDuring(async () => {
      forged = await postTwilio(account, 'incoming', nulForm, paramsOf(nulForm, `Hi\u0000${SECRET_WORDS}`), hex('9'));
    });
    expectApiError(forged!, 403, 'INVALID_SIGNATURE');
    expect(grew('twilio', 'nul')).toBe(0);
  });

  test('a status callback with NUL is answered 204 and refused alone', async () => {
    const account = await accountWith('twilio');
    const sent = `MessageSid=SM${hex('f')}&MessageStatus=undelivered&ErrorCode=30003&ErrorMessage=Unreachable%00${SECRET_WORDS}`;
    const params = { ...Object.fromEntries(new URLSearchParams(sent)) };
    let status = 0;
    const grew = await refusalsDuring(async () => {
      status = (await postTwilio(account, 'status', sent, params)).status;
    });
    expect(status).toBe(204);
    expect(grew('twilio', 'nul')).toBe(1);
    expect(await refusalLines(account, 1)).toEqual([
      expect.objectContaining({ provider: 'twilio', account: account.id, reason: 'nul' }),
    ]);
  });
});
