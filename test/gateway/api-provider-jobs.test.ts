import {
  advanceClock,
  api,
  createAccount,
  getBytes,
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
  type TestGateway,
} from './api-support';
import { removeDir, startGateway, tempDir } from '../helpers/gateway';
import { jobsWithStatus, untilProcessed } from '../helpers/inbound';
import { logLines } from '../helpers/log-lines';
import { PNG, PROFILE, SlowProvider } from './slow-provider';
import { messenger, twilio } from '../helpers/provider-accounts';

/**
 * A provider's webhook is verified, stored as jobs and answered at once; the jobs read files and profiles and run the
 * engine afterwards. With stand-ins that hold every file and profile 5 s (or until the test lets them go): the answer
 * comes while they are held, and the message after. A contact's messages are stored in the order they came and
 * once, however often and whenever their provider delivers them again; an entry that can never be processed is a
 * dead job of its own; a gateway killed while it processes loses nothing. The same on both backends.
 */
const PUBLIC_URL = 'https://chat.example.test';
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

const slow = new SlowProvider();
const env: Record<string, string> = {
  LEADCHAT_JOB_POLL: '100ms',
  LEADCHAT_PUBLIC_URL: PUBLIC_URL,
  LEADCHAT_TEST_CLOCK: '1',
};
beforeAll(async () => {
  await slow.start();
  Object.assign(env, { LEADCHAT_TWILIO_API_URL: slow.url, LEADCHAT_MESSENGER_API_URL: `${slow.url}/v23.0` });
});
// The system's time: a test here reads that two messages stored one after the other by jobs, with no step of the
// test between them, bear times in that order.
const ctx = useGateway(env, { clock: 'system' });
afterAll(() => slow.close());
beforeEach(() => slow.hold());

async function accountWith(gw: TestGateway, channel: 'twilio' | 'messenger'): Promise<TestAccount> {
  const account = await createAccount(gw);
  expect(
    (await api(gw, account, 'PUT', `channels/${channel}`, { body: channel === 'twilio' ? twilio : messenger })).status,
  ).toBe(200);
  return account;
}

function postTwilio(gw: TestGateway, account: TestAccount, params: Record<string, string>) {
  const path = `/v1/channels/twilio/${account.id}/incoming`;
  return request(gw, 'POST', path, {
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': twilioSignature(twilio.authToken, PUBLIC_URL + path, params),
    },
    body: new URLSearchParams(params).toString(),
  });
}

const sms = (phone: string, sid: string, body: string) => ({
  MessageSid: sid,
  AccountSid: twilio.accountSid,
  From: phone,
  To: twilio.from,
  Body: body,
  NumMedia: '0',
});
const mms = (phone: string, sid: string, body: string) => ({
  ...sms(phone, sid, body),
  NumMedia: '1',
  MediaUrl0: slow.twilioMedia(twilio.accountSid, sid.slice(2)),
  MediaContentType0: 'image/png',
});

function postMessenger(gw: TestGateway, account: TestAccount, events: object[]) {
  const body = JSON.stringify({
    object: 'page',
    entry: [{ id: messenger.pageId, time: Date.now(), messaging: events }],
  });
  return request(gw, 'POST', `/v1/channels/messenger/${account.id}/webhook`, {
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': metaSignature(messenger.appSecret, body) },
    body,
  });
}
const psid = () => String(7_000_000_000_000_000 + Math.floor(Math.random() * 1e15));
const text = (sender: string, mid: string, body: string) => ({
  sender: { id: sender },
  recipient: { id: messenger.pageId },
  timestamp: Date.now(),
  message: { mid, text: body },
});

/** The incoming messages of the contact with this phone number, oldest first; undefined while there is no such contact. */
async function phoneMessages(gw: TestGateway, account: TestAccount, phone: string): Promise<any[] | undefined> {
  const contact = await api(gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } });
  if (contact.status === 404) return undefined;
  const messages = (await api(gw, account, 'GET', `contacts/${contact.body.id}/messages?limit=200`)).body.data as any[];
  return messages.filter((m) => m.direction === 'incoming').sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** The conversation of the contact known on Messenger by `id`; undefined while there is none. */
async function messengerConversation(gw: TestGateway, account: TestAccount, id: string): Promise<any> {
  return ((await api(gw, account, 'GET', 'conversations')).body.data as any[]).find(
    (c) => c.contact.externalIds?.messenger === id,
  );
}

/** What a contact wrote, oldest first (the gateway's hand-off notices to them aside). */
async function written(gw: TestGateway, account: TestAccount, contactId: string): Promise<string[]> {
  const messages = (await api(gw, account, 'GET', `contacts/${contactId}/messages?limit=200`)).body.data as any[];
  return messages.filter((m) => m.direction === 'incoming').map((m) => m.body);
}

const mediaOf = (sid: string) => new RegExp(`/Media/ME${sid.slice(2)}$`);

describe('answered at once, processed in a job', () => {
  test("Twilio: a contact's photo held 5 s by Twilio; the webhook is answered while it is held, the message stored once it is read", async () => {
    const account = await accountWith(ctx.gw, 'twilio');
    const phone = uniquePhone();
    const sid = `MM${unique('photo').replace(/\W/g, '')}`;
    const answer = await postTwilio(ctx.gw, account, mms(phone, sid, 'The crack in the wall'));
    expect({ status: answer.status, type: answer.headers['content-type'], text: answer.text }).toEqual({
      status: 200,
      type: expect.stringMatching(/^text\/xml/),
      text: EMPTY_TWIML,
    });
    // Answered before any file was served: the provider never waited for it.
    expect(slow.served).toBe(0);
    expect(await phoneMessages(ctx.gw, account, phone)).toBeUndefined();

    await slow.waitFor(mediaOf(sid));
    slow.release();
    await untilProcessed(ctx.gw);
    const [photo] = (await phoneMessages(ctx.gw, account, phone))!;
    expect(photo).toMatchObject({
      messageSid: sid,
      body: 'The crack in the wall',
      media: { url: `/v1/media/${photo.media.mediaId}`, contentType: 'image/png' },
    });
    expect((await getBytes(ctx.gw, account, photo.media.url)).bytes.equals(PNG)).toBe(true);
  });

  test("Messenger: a new sender's profile held 5 s by Meta; the webhook is answered while it is held, the contact named once it is read", async () => {
    const account = await accountWith(ctx.gw, 'messenger');
    const lead = psid();
    const answer = await postMessenger(ctx.gw, account, [text(lead, unique('mid'), 'Is the flat still free?')]);
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: { success: true } });
    const served = slow.served;
    await slow.waitFor(new RegExp(`^/v23\\.0/${lead}\\?fields=`));
    expect(slow.served).toBe(served);
    expect(await messengerConversation(ctx.gw, account, lead)).toBeUndefined();

    slow.release();
    await untilProcessed(ctx.gw);
    const conversation = await messengerConversation(ctx.gw, account, lead);
    expect(conversation).toMatchObject({
      channel: 'messenger',
      contact: { firstName: PROFILE.first_name, lastName: PROFILE.last_name },
    });
    expect(await written(ctx.gw, account, conversation.contactId)).toEqual(['Is the flat still free?']);
  });
});

test("a provider's entries have a queue of their own: while more of them wait on their files than it has slots, a reply to a custom channel goes out at once", async () => {
  const account = await accountWith(ctx.gw, 'twilio');
  const hook = await Receiver.start();
  try {
    expect(
      (await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } })).status,
    ).toBe(200);
    const [asked, served] = [slow.count(/\/Media\/ME/), slow.served];
    // 20 contacts' photos: 16 entries (the inbound queue's slots) read their files, the others wait for a slot.
    for (let n = 0; n < 20; n++) {
      const photo = mms(uniquePhone(), `MM${unique(`queue${n}`).replace(/\W/g, '')}`, 'The crack in the wall');
      expect((await postTwilio(ctx.gw, account, photo)).text).toBe(EMPTY_TWIML);
    }
    await poll(
      async () => slow.count(/\/Media\/ME/) - asked,
      (reading) => reading >= 16,
    );

    const sent = await api(ctx.gw, account, 'POST', 'send_custom_channel_message', {
      body: { customData: { fromId: unique('visitor'), customChannel: 'live-chat', body: 'We are open until 6pm.' } },
    });
    expect(sent.status).toBe(200);
    const [delivery] = await hook.waitFor(1);
    expect(delivery!.body).toMatchObject({ body: 'We are open until 6pm.' });
    // Delivered while every file was still held.
    expect(slow.served).toBe(served);
    expect(slow.count(/\/Media\/ME/) - asked).toBe(16);
  } finally {
    await hook.close();
    slow.release();
    await untilProcessed(ctx.gw);
  }
});

describe('stored once, in order', () => {
  test('a photo and then a text from one contact are stored in that order; each delivered again while waiting, while processed and once done is stored once', async () => {
    const account = await accountWith(ctx.gw, 'twilio');
    const phone = uniquePhone();
    const photo = mms(phone, `MM${unique('a').replace(/\W/g, '')}`, 'First: the photo');
    const after = sms(phone, `SM${unique('b').replace(/\W/g, '')}`, 'Second: the question');
    expect((await postTwilio(ctx.gw, account, photo)).text).toBe(EMPTY_TWIML);
    await slow.waitFor(mediaOf(photo.MessageSid));
    // The photo's job is reading its file; the text waits for its turn, and comes again meanwhile, as does the photo.
    for (const again of [after, after, photo])
      expect((await postTwilio(ctx.gw, account, again)).text).toBe(EMPTY_TWIML);
    expect(await phoneMessages(ctx.gw, account, phone)).toBeUndefined();

    slow.release();
    await untilProcessed(ctx.gw);
    const stored = (await phoneMessages(ctx.gw, account, phone))!;
    expect(stored.map((m) => m.messageSid)).toEqual([photo.MessageSid, after.MessageSid]);
    expect(stored[0].createdAt < stored[1].createdAt).toBe(true);
    expect(slow.count(mediaOf(photo.MessageSid))).toBe(1);

    // Delivered again once both are stored: known by its messageSid, its file not read again.
    expect((await postTwilio(ctx.gw, account, photo)).text).toBe(EMPTY_TWIML);
    await untilProcessed(ctx.gw);
    expect((await phoneMessages(ctx.gw, account, phone))!.map((m) => m.messageSid)).toEqual([
      photo.MessageSid,
      after.MessageSid,
    ]);
    expect(slow.count(mediaOf(photo.MessageSid))).toBe(1);
  });

  test("two messages of a new Messenger sender in one webhook: stored in order, the sender's profile read once", async () => {
    const account = await accountWith(ctx.gw, 'messenger');
    const lead = psid();
    const [first, second] = [unique('mid'), unique('mid')];
    expect(
      (await postMessenger(ctx.gw, account, [text(lead, first, 'Hello'), text(lead, second, 'Do you have parking?')]))
        .status,
    ).toBe(200);
    await slow.waitFor(new RegExp(`^/v23\\.0/${lead}\\?fields=`));
    slow.release();
    await untilProcessed(ctx.gw);
    const conversation = await messengerConversation(ctx.gw, account, lead);
    const messages = (
      (await api(ctx.gw, account, 'GET', `contacts/${conversation.contact.id}/messages?limit=200`)).body.data as any[]
    )
      .filter((m) => m.direction === 'incoming')
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    expect(messages.map((m) => m.messageSid)).toEqual([first, second]);
    expect(slow.count(new RegExp(`^/v23\\.0/${lead}\\?`))).toBe(1);
  });
});

test('an entry that can never be processed is a dead job of its own, with where it was and why; the others of its webhook are stored', async () => {
  const account = await accountWith(ctx.gw, 'messenger');
  const [broken, lead] = [psid(), psid()];
  const malformed = {
    sender: { id: broken },
    recipient: { id: messenger.pageId },
    timestamp: Date.now(),
    message: { text: 'no mid' },
  };
  slow.release();
  expect((await postMessenger(ctx.gw, account, [malformed, text(lead, unique('mid'), 'Still there?')])).status).toBe(
    200,
  );
  await untilProcessed(ctx.gw);
  expect(await written(ctx.gw, account, (await messengerConversation(ctx.gw, account, lead)).contactId)).toEqual([
    'Still there?',
  ]);
  expect(await messengerConversation(ctx.gw, account, broken)).toBeUndefined();
  const dead = (await jobsWithStatus(ctx.gw, 'dead')).filter(
    (job) => job.kind === 'inbound' && job.accountId === account.id,
  );
  expect(dead).toEqual([
    expect.objectContaining({
      attempts: 1,
      lastError: 'entry[0].messaging[0].message.mid is missing',
      data: expect.objectContaining({
        provider: 'messenger',
        entry: expect.objectContaining({ where: 'entry[0].messaging[0]', raw: malformed }),
      }),
    }),
  ]);
  // The operator's line says why, without a stack trace: the data is at fault, not the code.
  const said = logLines(ctx.gw.output()).filter((line) => line.job === dead[0]!.id);
  expect(said).toEqual([
    { ...said[0], msg: 'job failed for good', kind: 'inbound', reason: 'entry[0].messaging[0].message.mid is missing' },
  ]);
  expect(said[0]).not.toHaveProperty('err');
});

test("a contact erased while its messages wait or are read: those taken before are dropped; one sent after is a new contact's, opted out as the person was", async () => {
  const account = await accountWith(ctx.gw, 'twilio');
  const phone = uniquePhone();
  const sid = (name: string) => `SM${unique(name).replace(/\W/g, '')}`;
  expect((await postTwilio(ctx.gw, account, sms(phone, sid('stop'), 'STOP'))).text).toBe(EMPTY_TWIML);
  await untilProcessed(ctx.gw);
  const erased = (await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } })).body;
  expect(erased.optOut).toMatchObject({ keyword: 'stop' });

  // A photo whose file Twilio holds is being read; a text waits for its turn behind it.
  const photo = mms(phone, `MM${unique('card').replace(/\W/g, '')}`, 'my insurance card WREN-8841');
  expect((await postTwilio(ctx.gw, account, photo)).text).toBe(EMPTY_TWIML);
  await slow.waitFor(mediaOf(photo.MessageSid));
  const waiting = sms(phone, sid('birth'), 'born 1961-04-17 OSPREY');
  expect((await postTwilio(ctx.gw, account, waiting)).text).toBe(EMPTY_TWIML);
  expect((await api(ctx.gw, account, 'DELETE', `contacts/${erased.id}`)).status).toBe(204);

  await advanceClock(ctx.gw, '1s');
  const later = sms(phone, sid('again'), 'Hello, is anyone there?');
  expect((await postTwilio(ctx.gw, account, later)).text).toBe(EMPTY_TWIML);
  slow.release();
  await untilProcessed(ctx.gw);
  const again = (await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } })).body;
  expect(again.id).not.toBe(erased.id);
  expect(again.optOut).toMatchObject({ keyword: 'stop' });
  expect(await written(ctx.gw, account, again.id)).toEqual(['Hello, is anyone there?']);
  expect((await phoneMessages(ctx.gw, account, phone))!.map((m) => m.messageSid)).toEqual([later.MessageSid]);
});

test("a STOP a provider brought before its sender's erasure, dropped after it, still opts the person out: stored again, they are not messaged", async () => {
  const account = await accountWith(ctx.gw, 'twilio');
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leads' } })).body;
  const live = { channel: 'sms', listId: list.id, openingMessage: 'Back in stock!', triggerOnNewContacts: true };
  const campaign = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: { name: 'Restock', status: 'live', ...live },
  });
  expect(campaign.status).toBe(201);
  const sid = (prefix: 'SM' | 'MM', name: string) => `${prefix}${unique(name).replace(/\W/g, '')}`;
  const [ann, ben] = [uniquePhone(), uniquePhone()];
  const contacts = await Promise.all(
    [ann, ben].map(async (phone) => (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone } })).body),
  );
  // Ann's STOP is the caption of a photo being read as she is erased; Ben's waits its turn behind a photo being read.
  const annStop = mms(ann, sid('MM', 'ann'), 'STOP');
  const benPhoto = mms(ben, sid('MM', 'ben'), 'my car, the dent');
  for (const entry of [annStop, benPhoto]) {
    expect((await postTwilio(ctx.gw, account, entry)).text).toBe(EMPTY_TWIML);
    await slow.waitFor(mediaOf(entry.MessageSid));
  }
  expect((await postTwilio(ctx.gw, account, sms(ben, sid('SM', 'stop'), 'Stop please'))).text).toBe(EMPTY_TWIML);
  for (const c of contacts) expect((await api(ctx.gw, account, 'DELETE', `contacts/${c.id}`)).status).toBe(204);
  const sends = slow.count(/\/Messages\.json$/);
  const join = async (phone: string, delay?: string) => {
    const contact = (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone } })).body;
    const joined = await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, {
      body: { contactId: contact.id, ...(delay && { delay }) },
    });
    expect(joined.status).toBe(201);
    return contact;
  };
  // Ben is stored again before his STOP is processed, his opening an hour away; Ann after hers.
  const benAgain = await join(ben, '1h');
  expect(benAgain.optOut ?? null).toBeNull();

  slow.release();
  await untilProcessed(ctx.gw);
  const annAgain = await join(ann);
  await untilIdle(ctx.gw);
  const shown = async (c: { id: string }) => (await api(ctx.gw, account, 'GET', `contacts/${c.id}`)).body;
  expect(await shown(annAgain)).toMatchObject({ optOut: { channel: 'sms', keyword: 'stop' } });
  expect(await shown(benAgain)).toMatchObject({ optOut: { channel: 'sms', keyword: 'stop please' } });
  for (const c of [annAgain, benAgain]) {
    const [conversation] = (await api(ctx.gw, account, 'GET', 'conversations', { query: { contactId: c.id } })).body
      .data;
    expect(conversation).toMatchObject({ status: 'opted_out', opening: { status: 'skipped', reason: 'opted_out' } });
    // Nothing of what they wrote is kept, and no confirmation went to a person erased.
    expect((await api(ctx.gw, account, 'GET', `contacts/${c.id}/messages`)).body.data).toEqual([]);
  }
  expect(slow.count(/\/Messages\.json$/)).toBe(sends);
});

test('kill -9 while a message is processed and the next one waits for its turn: after a restart both are stored, in order, once', async () => {
  const dataDir = tempDir('leadchat-provider-jobs-');
  let gw = await startGateway(env, dataDir);
  try {
    const account = await accountWith(gw, 'twilio');
    const phone = uniquePhone();
    const photo = mms(phone, `MM${unique('k').replace(/\W/g, '')}`, 'Before the crash');
    const after = sms(phone, `SM${unique('l').replace(/\W/g, '')}`, 'Also before the crash');
    expect((await postTwilio(gw, account, photo)).text).toBe(EMPTY_TWIML);
    expect((await postTwilio(gw, account, after)).text).toBe(EMPTY_TWIML);
    await slow.waitFor(mediaOf(photo.MessageSid));
    await gw.kill();
    expect(gw.process.signalCode).toBe('SIGKILL');

    gw = await startGateway(env, dataDir);
    // A job whose process died runs again once its lease is over; it reads the file again.
    await advanceClock(gw, '3m');
    await poll(
      async () => slow.count(mediaOf(photo.MessageSid)),
      (n) => n >= 2,
    );
    slow.release();
    await untilProcessed(gw);
    const stored = (await phoneMessages(gw, account, phone))!;
    expect(stored.map((m) => [m.messageSid, m.body])).toEqual([
      [photo.MessageSid, 'Before the crash'],
      [after.MessageSid, 'Also before the crash'],
    ]);
    expect(stored[0].media).toMatchObject({ contentType: 'image/png', mediaId: expect.stringMatching(/^med_/) });
  } finally {
    await gw.stop();
    removeDir(dataDir);
  }
});
