import {
  advanceClock,
  api,
  createAccount,
  poll,
  unique,
  uniquePhone,
  untilIdle,
  useGateway,
  type TestAccount,
} from './api-support';
import { twilio } from '../helpers/provider-accounts';
import { flakyTwilio } from './flaky-twilio';

/**
 * A sub-account pays for a message when the gateway hands it to its channel. One the gateway then withholds before
 * any provider took it (the contact said STOP while its send waited for Twilio to come back) was never sent: what it
 * paid comes back, as a `refund` line naming the message, and the balance is still the sum of the history's lines.
 */
const twilioStandIn = flakyTwilio('https://chat.example.test');
const { down, sendsTo } = twilioStandIn;
const ctx = useGateway(twilioStandIn.env);
const sms = (account: TestAccount, from: string, body: string) => twilioStandIn.sms(ctx.gw, account, from, body);

async function subAccountOnTwilio(credits: number): Promise<TestAccount> {
  const agency = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  const sub = await createAccount(ctx.gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
  expect((await api(ctx.gw, sub, 'PUT', 'channels/twilio', { body: twilio })).status).toBe(200);
  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: credits } });
  return sub;
}

async function history(account: TestAccount): Promise<any[]> {
  const entries: any[] = [];
  let cursor: string | undefined;
  do {
    const page = (
      await api(ctx.gw, account, 'GET', 'credits/history', {
        query: { limit: '2', ...(cursor ? { cursor } : {}) },
      })
    ).body;
    entries.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return entries;
}

const cents = (n: number) => Math.round(n * 100);

test('a team reply withheld because the lead said STOP while Twilio was down gives back what it paid, as a refund line', async () => {
  const sub = await subAccountOnTwilio(10);
  const phone = uniquePhone();
  expect((await sms(sub, phone, 'Hi, is the offer still on?')).status).toBe(200);
  await untilIdle(ctx.gw);
  const lead = (await api(ctx.gw, sub, 'GET', 'contacts', { query: { phoneNumber: phone } })).body;
  const before = sendsTo(phone).length;
  const balanceBefore = (await api(ctx.gw, sub, 'GET', 'credits')).body.balance;

  down.set(phone, 1);
  // 161 GSM-7 characters: two segments, two credits.
  const reply = await api(ctx.gw, sub, 'POST', `contacts/${lead.id}/messages`, { body: { body: 'A'.repeat(161) } });
  expect(reply.status).toBe(201);
  await poll(
    async () => sendsTo(phone).length,
    (n) => n === before + 1,
  );
  expect((await api(ctx.gw, sub, 'GET', 'credits')).body.balance).toBe(balanceBefore - 2);

  expect((await sms(sub, phone, 'STOP')).status).toBe(200);
  await advanceClock(ctx.gw, '1m');
  await untilIdle(ctx.gw);
  expect((await api(ctx.gw, sub, 'GET', `messages/${reply.body.id}`)).body).toMatchObject({
    status: 'skipped',
    errorCode: 'CONTACT_OPTED_OUT',
  });

  const credits = (await api(ctx.gw, sub, 'GET', 'credits')).body;
  expect(credits.balance).toBe(balanceBefore);
  const lines = await history(sub);
  const ofReply = lines.filter((e) => e.messageId === reply.body.id);
  expect(ofReply.map((e) => [e.kind, e.amount, e.messageKind, e.channel])).toEqual([
    ['refund', 2, 'team', 'sms'],
    ['usage', -2, 'team', 'sms'],
  ]);
  expect(lines[0]).toMatchObject({ kind: 'refund', balance: balanceBefore });
  // The balance is the sum of its lines, and GET /v1/credits lists the same lines.
  expect(lines.reduce((sum, e) => sum + cents(e.amount), 0)).toBe(cents(credits.balance));
  expect(credits.transactions.map((t: any) => [t.id, t.kind, t.amount])).toEqual(
    lines.map((e) => [e.id, e.kind === 'recharge' ? 'grant' : e.kind, e.amount]),
  );
});

test('a reply the provider refused for good stays paid: it was handed over, and a retry of it is not charged again', async () => {
  const sub = await subAccountOnTwilio(10);
  const phone = uniquePhone();
  expect((await sms(sub, phone, 'Hello')).status).toBe(200);
  await untilIdle(ctx.gw);
  const lead = (await api(ctx.gw, sub, 'GET', 'contacts', { query: { phoneNumber: phone } })).body;
  const balanceBefore = (await api(ctx.gw, sub, 'GET', 'credits')).body.balance;

  // Every try of the retry schedule refused.
  down.set(phone, 100);
  const reply = await api(ctx.gw, sub, 'POST', `contacts/${lead.id}/messages`, { body: { body: 'See you Tuesday' } });
  for (let i = 0; i < 12; i++) {
    await advanceClock(ctx.gw, '6h');
    await untilIdle(ctx.gw);
  }
  expect((await api(ctx.gw, sub, 'GET', `messages/${reply.body.id}`)).body.status).toBe('failed');
  down.set(phone, 0);
  expect((await api(ctx.gw, sub, 'POST', `messages/${reply.body.id}/retry`)).status).toBe(200);
  await untilIdle(ctx.gw);
  expect((await api(ctx.gw, sub, 'GET', `messages/${reply.body.id}`)).body.status).toBe('sent');

  const credits = (await api(ctx.gw, sub, 'GET', 'credits')).body;
  expect(credits.balance).toBe(balanceBefore - 1);
  const lines = await history(sub);
  expect(lines.filter((e) => e.messageId === reply.body.id).map((e) => [e.kind, e.amount])).toEqual([['usage', -1]]);
  expect(lines.reduce((sum, e) => sum + cents(e.amount), 0)).toBe(cents(credits.balance));
});
