import {
  api,
  createAccount,
  Receiver,
  uniquePhone,
  untilIdle,
  useGateway,
  type Answer,
  type Received,
} from './api-support';
import { twilio } from '../helpers/provider-accounts';

/**
 * A campaign's message that waits for its provider to come back (Twilio down) keeps to the campaign's sending window
 * when it is tried again: a lead is not texted at night because the provider was down at 19:55.
 */
const down = new Map<string, number>();
const sends: Array<{ to: string; at: string }> = [];
let sent = 0;

function respond(_n: number, req: Received): Answer {
  if (!req.path.endsWith('/Messages.json')) return { status: 404 };
  const to = new URLSearchParams(req.raw).get('To') ?? '';
  sends.push({ to, at: new Date(ctx.gw.now()).toISOString() });
  const failures = down.get(to) ?? 0;
  if (failures > 0) {
    down.set(to, failures - 1);
    return { status: 503, body: JSON.stringify({ code: 20500, message: 'Service unavailable', status: 503 }) };
  }
  return { status: 201, body: JSON.stringify({ sid: `SM${String(++sent).padStart(32, '0')}`, status: 'queued' }) };
}

const env: Record<string, string> = { LEADCHAT_JOB_POLL: '100ms', LEADCHAT_WEBHOOK_RETRIES: '1h,4h' };
let provider: Receiver;
beforeAll(async () => {
  provider = await Receiver.start(respond);
  env.LEADCHAT_TWILIO_API_URL = provider.url.replace(/\/hook$/, '');
});
const ctx = useGateway(env);
afterAll(() => provider.close());

test('an opening Twilio refused at 19:45 is tried again at the window’s next opening, not at 20:45', async () => {
  const account = await createAccount(ctx.gw);
  expect((await api(ctx.gw, account, 'PUT', 'channels/twilio', { body: twilio })).status).toBe(200);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  await ctx.gw.advance(Date.parse('2027-03-27T18:45:00Z') - ctx.gw.now()); // Saturday 19:45 CET
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leads' } })).body;
  const created = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Spring',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Hi {{first_name|there}}!',
      triggerOnNewContacts: true,
      status: 'live',
      sendingWindow: { start: '08:00', end: '20:00', timezone: 'Europe/Berlin' },
    },
  });
  expect(created.status).toBe(201);
  const phone = uniquePhone();
  down.set(phone, 1);
  const contact = (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone } })).body;
  await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: contact.id } });

  await untilIdle(ctx.gw, { horizonMs: 16 * 3_600_000 });
  // The clocks go forward that night: the window opens at 08:00 CEST, 06:00Z.
  expect(sends.filter((s) => s.to === phone).map((s) => s.at)).toEqual([
    '2027-03-27T18:45:00.000Z',
    '2027-03-28T06:00:00.000Z',
  ]);
  const messages = (await api(ctx.gw, account, 'GET', `contacts/${contact.id}/messages`)).body.data as any[];
  expect(messages.map((m) => m.status)).toEqual(['sent']);
});
