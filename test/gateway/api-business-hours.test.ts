import {
  api,
  createAccount,
  expectApiError,
  HANDOFF_NOTICE,
  incoming,
  Receiver,
  unique,
  untilIdle,
  useGateway,
  type TestAccount,
} from './api-support';
import { atHour, elapse, HOUR, MINUTE, utcHours } from './business-hours-support';

/**
 * The team's business hours (businessHours of /v1/settings, a window as a campaign's sendingWindow): a hand-off out of
 * them tells the contact the away notice rather than "a member of our team will get back to you shortly", and the
 * wait before handoffReminderAfter reminds the team counts only the time within them. Hours are set in UTC around the
 * gateway's clock, moved to a known hour first, so that each test opens and closes them at known instants.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '100ms', LEADCHAT_BOT_DEBOUNCE: '0s', LEADCHAT_TEST_CLOCK: '1' });

const AWAY_NOTICE =
  'Thanks for your message! Our team is away right now; we will get back to you as soon as we are back.';
const WEEK = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

async function started(respond?: ConstructorParameters<typeof Receiver>[0]): Promise<Receiver> {
  const receiver = await Receiver.start(respond);
  receivers.push(receiver);
  return receiver;
}

/** An account whose web chat's replies reach a receiver, and whose `handoff` events go to `hook`, with `settings`. */
async function account(settings: Record<string, unknown> = {}) {
  const made = await createAccount(ctx.gw);
  const replies = await started();
  const hook = await started();
  expect((await api(ctx.gw, made, 'POST', 'webhooks', { body: { url: hook.url, events: ['handoff'] } })).status).toBe(
    201,
  );
  const set = await api(ctx.gw, made, 'PUT', 'settings', {
    body: { customChannelWebhookUrl: replies.url, ...settings },
  });
  expect(set.status).toBe(200);
  return { account: made, hook };
}

/** A message on the web chat, naming `campaignId` when given, which no campaign answers otherwise (no_campaign). */
async function write(account: TestAccount, fromId: string, body: string, campaignId?: string) {
  const res = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId, channel: 'web-chat', body, ...(campaignId ? { campaignId } : {}) }),
  });
  expect(res.status).toBe(200);
  await untilIdle(ctx.gw);
  return (await api(ctx.gw, account, 'GET', `messages/${res.body.messageId}`)).body as {
    conversationId: string;
    contactId: string;
  };
}

/** What the contact was sent after writing, oldest first: [author, body]. */
async function told(account: TestAccount, contactId: string): Promise<Array<[string, string]>> {
  const messages = (await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages?limit=200`)).body.data as any[];
  return messages.filter((m) => m.direction === 'outgoing').map((m) => [m.author, m.body]);
}

const conversation = async (account: TestAccount, id: string) =>
  (await api(ctx.gw, account, 'GET', `conversations/${id}`)).body;

describe('the setting', () => {
  test('off (null, always open) for a new account; set, kept in its canonical form, answered by GET; null turns it off', async () => {
    const made = await createAccount(ctx.gw);
    expect((await api(ctx.gw, made, 'GET', 'settings')).body).toMatchObject({
      businessHours: null,
      awayMessage: null,
      defaultAwayMessage: AWAY_NOTICE,
    });
    const set = await api(ctx.gw, made, 'PUT', 'settings', {
      body: {
        businessHours: { start: ' 09:00', end: '18:00 ', timezone: 'US/Eastern', days: ['fri', 'mon', 'wed'] },
        awayMessage: '  We are closed; we answer from 9 tomorrow.  ',
      },
    });
    expect(set.status).toBe(200);
    const hours = { start: '09:00', end: '18:00', timezone: 'America/New_York', days: ['mon', 'wed', 'fri'] };
    expect(set.body).toMatchObject({ businessHours: hours, awayMessage: 'We are closed; we answer from 9 tomorrow.' });
    expect((await api(ctx.gw, made, 'GET', 'settings')).body).toMatchObject({ businessHours: hours });
    // Another setting leaves them as they are.
    expect((await api(ctx.gw, made, 'PUT', 'settings', { body: { helpText: 'Hi' } })).body.businessHours).toEqual(
      hours,
    );
    const everyDay = await api(ctx.gw, made, 'PUT', 'settings', {
      body: { businessHours: { start: '22:00', end: '06:00', timezone: 'utc' } },
    });
    expect(everyDay.body.businessHours).toEqual({ start: '22:00', end: '06:00', timezone: 'UTC', days: null });
    const off = await api(ctx.gw, made, 'PUT', 'settings', { body: { businessHours: null, awayMessage: null } });
    expect(off.body).toMatchObject({ businessHours: null, awayMessage: null });
    expect((await api(ctx.gw, made, 'GET', 'settings')).body).toMatchObject({ businessHours: null, awayMessage: null });
  });

  test('the built-in away notice is in the account language', async () => {
    const made = await createAccount(ctx.gw);
    const german = await api(ctx.gw, made, 'PUT', 'settings', { body: { language: 'de-AT' } });
    expect(german.body.defaultAwayMessage).toBe(
      'Danke für Ihre Nachricht! Unser Team ist gerade nicht da; wir melden uns, sobald wir zurück sind.',
    );
  });

  test.each([
    [{ start: '9:00', end: '18:00', timezone: 'Europe/Paris' }, 'businessHours.start'],
    [{ start: '09:00', end: '24:00', timezone: 'Europe/Paris' }, 'businessHours.end'],
    [{ start: '09:00', end: '09:00', timezone: 'Europe/Paris' }, 'businessHours.end'],
    [{ start: '09:00', end: '18:00', timezone: 'Paris' }, 'businessHours.timezone'],
    [{ start: '09:00', end: '18:00', timezone: 'Etc/GMT-1' }, 'businessHours.timezone'],
    [{ start: '09:00', end: '18:00', timezone: 'Europe/Paris', days: [] }, 'businessHours.days'],
    [{ start: '09:00', end: '18:00', timezone: 'Europe/Paris', days: ['mon', 'Tuesday'] }, 'businessHours.days'],
  ])('%j is refused, naming %s, and what was set stays', async (hours, field) => {
    const made = await createAccount(ctx.gw);
    const kept = { start: '08:00', end: '17:00', timezone: 'Europe/Paris', days: null };
    await api(ctx.gw, made, 'PUT', 'settings', { body: { businessHours: kept } });
    const res = await api(ctx.gw, made, 'PUT', 'settings', { body: { businessHours: hours } });
    expectApiError(res, 400, 'INVALID_BUSINESS_HOURS');
    expect(res.body.error.fields).toEqual([expect.objectContaining({ field, code: 'INVALID_BUSINESS_HOURS' })]);
    expect((await api(ctx.gw, made, 'GET', 'settings')).body.businessHours).toEqual(kept);
  });

  test('hours that are no object, a field of the wrong type and an away message too long are refused', async () => {
    const made = await createAccount(ctx.gw);
    for (const [body, field] of [
      [{ businessHours: '09:00-18:00' }, 'businessHours'],
      [{ businessHours: { start: 900, end: '18:00', timezone: 'UTC' } }, 'businessHours.start'],
      [{ awayMessage: 'x'.repeat(1001) }, 'awayMessage'],
    ] as const) {
      const res = await api(ctx.gw, made, 'PUT', 'settings', { body });
      expectApiError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.fields).toEqual([expect.objectContaining({ field })]);
    }
  });
});

describe('the contact is told the truth', () => {
  test('a hand-off out of hours tells the away notice, in hours the usual one; the handoff event is the same', async () => {
    const noon = await atHour(ctx.gw, 12);
    const { account: made, hook } = await account({ businessHours: utcHours(noon + HOUR, noon + 2 * HOUR) });
    const night = await write(made, unique('night'), 'Do you take new patients?');
    expect(await told(made, night.contactId)).toEqual([['system', AWAY_NOTICE]]);

    await elapse(ctx.gw, HOUR);
    const day = await write(made, unique('day'), 'Do you take new patients?');
    expect(await told(made, day.contactId)).toEqual([['system', HANDOFF_NOTICE]]);

    await hook.waitFor(2);
    const [away, usual] = hook.requests.map((r) => r.body);
    const same = ({ occurredAt: _o, contactId: _c, conversationId: _v, ...rest }: any) => rest;
    expect(away).toMatchObject({ type: 'handoff', reason: 'no_campaign', body: 'Do you take new patients?' });
    expect(same(away)).toEqual(same(usual));
    expect(await conversation(made, night.conversationId)).toMatchObject({
      status: 'handed_off',
      needsReply: true,
      handoff: { reason: 'no_campaign' },
    });
  });

  test("out of hours the account's away message wins over the campaign's and the account's hand-off messages", async () => {
    const noon = await atHour(ctx.gw, 12);
    const { account: made } = await account({
      businessHours: utcHours(noon + HOUR, noon + 2 * HOUR),
      handoffMessage: 'Someone will answer you in a minute.',
      awayMessage: 'We are closed; we will write to you when we open at 9.',
    });
    const campaign = await api(ctx.gw, made, 'POST', 'campaigns', {
      body: {
        name: 'Implants',
        channel: 'custom',
        customChannel: 'web-chat',
        bot: {
          handoffMessage: 'Our implant team will write to you right away.',
          faqs: [{ question: 'Do you do implants?', answer: 'Yes.' }],
        },
      },
    });
    expect(campaign.status).toBe(201);
    const asker = await write(made, unique('asker'), 'I want to talk to a human', campaign.body.id);
    expect(await told(made, asker.contactId)).toEqual([
      ['system', 'We are closed; we will write to you when we open at 9.'],
    ]);
    const nobody = await write(made, unique('nobody'), 'hello?');
    expect(await told(made, nobody.contactId)).toEqual([
      ['system', 'We are closed; we will write to you when we open at 9.'],
    ]);

    // In hours, nothing changes: the campaign's words.
    await elapse(ctx.gw, HOUR);
    const later = await write(made, unique('later'), 'I want to talk to a human', campaign.body.id);
    expect(await told(made, later.contactId)).toEqual([['system', 'Our implant team will write to you right away.']]);
  });

  test("without an away message of its own, the built-in one in the campaign's language, else the account's", async () => {
    const noon = await atHour(ctx.gw, 12);
    const { account: made } = await account({ businessHours: utcHours(noon + HOUR, noon + 2 * HOUR), language: 'es' });
    const campaign = await api(ctx.gw, made, 'POST', 'campaigns', {
      body: { name: 'Rendez-vous', channel: 'custom', customChannel: 'web-chat', language: 'fr' },
    });
    expect(campaign.status).toBe(201);
    const french = await write(made, unique('fr'), 'Je veux parler à une personne', campaign.body.id);
    expect(await told(made, french.contactId)).toEqual([
      [
        'system',
        'Merci pour votre message ! Notre équipe est absente pour le moment ; nous vous répondrons dès notre retour.',
      ],
    ]);
    const spanish = await write(made, unique('es'), 'hola');
    expect(await told(made, spanish.contactId)).toEqual([
      [
        'system',
        '¡Gracias por tu mensaje! Nuestro equipo no está disponible ahora; te responderemos en cuanto volvamos.',
      ],
    ]);
  });

  test("out of hours the away notice stands in for an LLM's own hand-off words, sent as the bot's reply", async () => {
    const content = 'Let me get a colleague, they will be with you in a minute! [HANDOFF]';
    const llm = await started(() => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'c1',
        object: 'chat.completion',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
      }),
    }));
    const noon = await atHour(ctx.gw, 12);
    const { account: made, hook } = await account({ businessHours: utcHours(noon + HOUR, noon + 2 * HOUR) });
    const bot = await api(ctx.gw, made, 'PUT', 'settings/bot', {
      body: { provider: 'openai', openai: { baseUrl: llm.url, model: 'test-model', apiKey: null } },
    });
    expect(bot.status).toBe(200);
    const campaign = await api(ctx.gw, made, 'POST', 'campaigns', {
      body: { name: 'Clinic', channel: 'custom', customChannel: 'web-chat', bot: { companyInfo: 'A dental clinic.' } },
    });
    const night = await write(made, unique('night'), 'My crown fell off, what do I do?', campaign.body.id);
    expect(await told(made, night.contactId)).toEqual([['bot', AWAY_NOTICE]]);
    const [event] = await hook.waitFor(1);
    expect(event!.body).toMatchObject({ type: 'handoff', reason: 'bot_handoff' });

    await elapse(ctx.gw, HOUR);
    const day = await write(made, unique('day'), 'My crown fell off, what do I do?', campaign.body.id);
    expect(await told(made, day.contactId)).toEqual([
      ['bot', 'Let me get a colleague, they will be with you in a minute!'],
    ]);
  });
});

describe("the campaign's bot test tells what the contact would be told", () => {
  test('out of hours a hand-off shows the away notice, for a contact who asks for a person and for the bot that hands off; in hours the usual notice', async () => {
    const noon = await atHour(ctx.gw, 12);
    const { account: made } = await account({
      businessHours: utcHours(noon + HOUR, noon + 2 * HOUR),
      awayMessage: 'We are closed; we will write to you when we open at 9.',
    });
    const campaign = await api(ctx.gw, made, 'POST', 'campaigns', {
      body: {
        name: 'Implants',
        channel: 'custom',
        customChannel: 'web-chat',
        bot: { handoffMessage: 'Our implant team will write to you right away.', faqs: [] },
      },
    });
    expect(campaign.status).toBe(201);
    const test = async (message: string) =>
      (await api(ctx.gw, made, 'POST', `campaigns/${campaign.body.id}/bot/test`, { body: { message } })).body.reply;
    const away = 'We are closed; we will write to you when we open at 9.';
    expect(await test('I want to talk to a human')).toEqual({ kind: 'handoff', reason: 'contact_asked', body: away });
    // No FAQ answers it: the FAQ bot hands it off, in the notice's words.
    expect(await test('Do you do implants?')).toMatchObject({ kind: 'handoff', body: away });

    await elapse(ctx.gw, HOUR);
    const usual = 'Our implant team will write to you right away.';
    expect(await test('I want to talk to a human')).toEqual({ kind: 'handoff', reason: 'contact_asked', body: usual });
    expect(await test('Do you do implants?')).toMatchObject({ kind: 'handoff', body: usual });
  });
});

describe('reminders keep to working time', () => {
  test('handed off before opening: the team is reminded at the opening plus the wait', async () => {
    const noon = await atHour(ctx.gw, 12);
    const { account: made } = await account({ businessHours: utcHours(noon + 2 * HOUR, noon + 5 * HOUR) });
    const { conversationId } = await write(made, unique('early'), 'Is anyone there?');
    const since = (await conversation(made, conversationId)).waitingSince;
    expect(Date.parse(since)).toBe(noon);

    await elapse(ctx.gw, 2 * HOUR + 14 * MINUTE);
    expect((await conversation(made, conversationId)).remindedAt).toBeNull();
    await elapse(ctx.gw, MINUTE);
    const reminded = await conversation(made, conversationId);
    expect(Date.parse(reminded.remindedAt)).toBe(noon + 2 * HOUR + 15 * MINUTE);
  });

  test('handed off near closing: the minutes before it count, the rest runs from the next opening', async () => {
    const noon = await atHour(ctx.gw, 12);
    // Open 09:00 to 12:05 every day: 5 minutes count today, the other 10 from 09:00 tomorrow.
    const { account: made } = await account({ businessHours: utcHours(noon - 3 * HOUR, noon + 5 * MINUTE) });
    const { conversationId } = await write(made, unique('late'), 'Still open?');

    await elapse(ctx.gw, 21 * HOUR + 9 * MINUTE);
    expect((await conversation(made, conversationId)).remindedAt).toBeNull();
    await elapse(ctx.gw, MINUTE);
    expect(Date.parse((await conversation(made, conversationId)).remindedAt)).toBe(noon + 21 * HOUR + 10 * MINUTE);
  });

  test('a day off counts nothing: the reminder waits for the next day the team works', async () => {
    const noon = await atHour(ctx.gw, 12);
    const today = WEEK[new Date(noon).getUTCDay()]!;
    const days = WEEK.filter((d) => d !== today);
    // 09:00 to 17:00 on every day but today.
    const { account: made } = await account({ businessHours: utcHours(noon - 3 * HOUR, noon + 5 * HOUR, days) });
    const { conversationId } = await write(made, unique('sunday'), 'Anyone?');

    await elapse(ctx.gw, 5 * HOUR);
    expect((await conversation(made, conversationId)).remindedAt).toBeNull();
    await elapse(ctx.gw, 16 * HOUR + 15 * MINUTE);
    expect(Date.parse((await conversation(made, conversationId)).remindedAt)).toBe(noon + 21 * HOUR + 15 * MINUTE);
  });

  test('hours set after the wait was timed time it anew: the working time counts from their opening', async () => {
    const noon = await atHour(ctx.gw, 12);
    const { account: made } = await account();
    const { conversationId } = await write(made, unique('waiting'), 'Hello?');
    // Set after the hand-off: the reminder was timed around the clock, due at 12:15, while the team is out.
    const set = await api(ctx.gw, made, 'PUT', 'settings', {
      body: { businessHours: utcHours(noon + HOUR, noon + 2 * HOUR) },
    });
    expect(set.status).toBe(200);
    await untilIdle(ctx.gw);

    await elapse(ctx.gw, HOUR + 14 * MINUTE);
    expect((await conversation(made, conversationId)).remindedAt).toBeNull();
    await elapse(ctx.gw, MINUTE);
    expect(Date.parse((await conversation(made, conversationId)).remindedAt)).toBe(noon + HOUR + 15 * MINUTE);
  });
});
