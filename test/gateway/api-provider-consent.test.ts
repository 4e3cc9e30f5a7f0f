import {
  advanceClock,
  api,
  createAccount,
  poll,
  uniquePhone,
  untilIdle,
  useGateway,
  type TestAccount,
} from './api-support';
import { twilio } from '../helpers/provider-accounts';
import { flakyTwilio } from './flaky-twilio';

/**
 * A lead who says STOP from their phone hears nothing more: also not a message that was on its way to them when they
 * said it, the provider down and its send waiting for a retry.
 */
const twilioStandIn = flakyTwilio('https://chat.example.test');
const { down, sendsTo } = twilioStandIn;
const ctx = useGateway(twilioStandIn.env);
const sms = (account: TestAccount, from: string, body: string) => twilioStandIn.sms(ctx.gw, account, from, body);

async function twilioAccount(): Promise<TestAccount> {
  const account = await createAccount(ctx.gw);
  expect((await api(ctx.gw, account, 'PUT', 'channels/twilio', { body: twilio })).status).toBe(200);
  return account;
}

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
