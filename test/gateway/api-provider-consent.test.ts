import {
  advanceClock,
  api,
  createAccount,
  poll,
  Receiver,
  request,
  twilioSignature,
  uniquePhone,
  untilIdle,
  useGateway,
  type Answer,
  type Received,
  type TestAccount,
} from './api-support';
import { processed } from '../helpers/inbound';
import { twilio } from '../helpers/provider-accounts';

/**
 * A lead who says STOP from their phone hears nothing more: also not a message that was on its way to them when they
 * said it, the provider down and its send waiting for a retry.
 */
const PUBLIC_URL = 'https://chat.example.test';
/** Numbers whose next sends Twilio refuses for now (503), as when it is down. */
const down = new Map<string, number>();
let sent = 0;

function respond(_n: number, req: Received): Answer {
  if (!req.path.endsWith('/Messages.json')) return { status: 404 };
  const to = new URLSearchParams(req.raw).get('To') ?? '';
  const failures = down.get(to) ?? 0;
  if (failures > 0) {
    down.set(to, failures - 1);
    return { status: 503, body: JSON.stringify({ code: 20500, message: 'Service unavailable', status: 503 }) };
  }
  return { status: 201, body: JSON.stringify({ sid: `SM${String(++sent).padStart(32, '0')}`, status: 'queued' }) };
}

const env: Record<string, string> = { LEADCHAT_JOB_POLL: '100ms', LEADCHAT_PUBLIC_URL: PUBLIC_URL };
let provider: Receiver;
beforeAll(async () => {
  provider = await Receiver.start(respond);
  env.LEADCHAT_TWILIO_API_URL = provider.url.replace(/\/hook$/, '');
});
const ctx = useGateway(env);
afterAll(() => provider.close());

async function twilioAccount(): Promise<TestAccount> {
  const account = await createAccount(ctx.gw);
  expect((await api(ctx.gw, account, 'PUT', 'channels/twilio', { body: twilio })).status).toBe(200);
  return account;
}

let sids = 0;
function sms(account: TestAccount, from: string, body: string) {
  const path = `/v1/channels/twilio/${account.id}/incoming`;
  const params = {
    MessageSid: `SM${String(++sids).padStart(4, '0')}${'f'.repeat(28)}`,
    AccountSid: twilio.accountSid,
    From: from,
    To: twilio.from,
    Body: body,
    NumMedia: '0',
  };
  return processed(
    ctx.gw,
    request(ctx.gw, 'POST', path, {
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature(twilio.authToken, PUBLIC_URL + path, params),
      },
      body: new URLSearchParams(params).toString(),
    }),
  );
}

const sendsTo = (phone: string) =>
  provider.requests.filter((r) => r.path.endsWith('/Messages.json') && new URLSearchParams(r.raw).get('To') === phone);

test("a team reply waiting for Twilio to come back is not sent once the lead said STOP; the STOP's confirmation is", async () => {
  const account = await twilioAccount();
  const phone = uniquePhone();
  expect((await sms(account, phone, 'Hi, is the offer still on?')).status).toBe(200);
  await untilIdle(ctx.gw);
  const lead = (await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } })).body;
  const before = sendsTo(phone).length;
  down.set(phone, 1);
  const reply = await api(ctx.gw, account, 'POST', `contacts/${lead.id}/messages`, {
    body: { body: 'Hi Ann, are you free on Tuesday?' },
  });
  expect(reply.status).toBe(201);
  await poll(
    async () => sendsTo(phone).length,
    (n) => n === before + 1,
  );

  expect((await sms(account, phone, 'STOP')).status).toBe(200);
  await advanceClock(ctx.gw, '1m');
  await untilIdle(ctx.gw);

  const bodies = sendsTo(phone).map((r) => new URLSearchParams(r.raw).get('Body'));
  expect(bodies.filter((b) => b === 'Hi Ann, are you free on Tuesday?')).toHaveLength(1);
  expect(bodies.at(-1)).toMatch(/unsubscribed|opted out|STOP/i);
  expect((await api(ctx.gw, account, 'GET', `messages/${reply.body.id}`)).body).toMatchObject({
    status: 'skipped',
    errorCode: 'CONTACT_OPTED_OUT',
  });
});
