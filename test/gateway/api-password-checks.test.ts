import path from 'node:path';
import { consoleAccount, passwordDerivations, signIn } from '../console/support';
import { advanceClock, expectApiError, request, useGateway } from './api-support';
import type { Reply } from '../helpers/gateway';
import { gatewayModule } from '../helpers/gateway-modules';

type Hashing = typeof import('../../gateway/src/domain/password-hashing.js', { with: { 'resolution-mode': 'import' } });

/**
 * Checking a password is work a client can ask for without an account: sign-in attempts are limited per address,
 * right ones too, an IPv6 address by its /64; and hashing runs on a bounded pool whose full queue refuses a check with
 * 429 and Retry-After rather than queueing it behind the store. Behind one proxy (X-Forwarded-For), so a test can
 * speak from any address; the clock is moved, never waited for.
 */
const LIMIT = 5;
const ctx = useGateway({
  LEADCHAT_TRUST_PROXY: '1',
  LEADCHAT_TEST_CLOCK: '1',
  LEADCHAT_SIGN_IN_RATE_LIMIT_PER_MINUTE: String(LIMIT),
  // The default: refusals are answered after it, as they are in production.
  LEADCHAT_SIGN_IN_REFUSAL_DELAY: '1s',
});

const from = (address: string) => ({ 'x-forwarded-for': address, 'x-forwarded-proto': 'https' });
let spread = 0;
/** An IPv4 address no other test of the file speaks from. */
const newAddress = () => `198.51.100.${++spread}`;

function expectTooManySignIns(reply: Reply): void {
  expect({ status: reply.status, code: reply.body?.error?.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
  expect(reply.body.error.message).toMatch(
    /^Too many sign-ins from this address; try again in (\d+ seconds?|1 minute)$/,
  );
  const seconds = Number(reply.headers['retry-after']);
  expect(Number.isInteger(seconds) && seconds >= 1 && seconds <= 60).toBe(true);
  expect(reply.headers['set-cookie']).toBeUndefined();
}

describe('sign-in attempts per address', () => {
  test(`right sign-ins count too: the ${LIMIT + 1}th in a minute from one address is refused, another address goes on, and a minute later the first again`, async () => {
    const owner = await consoleAccount(ctx.gw);
    const address = newAddress();
    for (let i = 0; i < LIMIT; i++) {
      expect((await signIn(ctx.gw, owner.email, owner.password, from(address))).reply.status).toBe(200);
    }
    expectTooManySignIns((await signIn(ctx.gw, owner.email, owner.password, from(address))).reply);
    expect((await signIn(ctx.gw, owner.email, owner.password, from(newAddress()))).reply.status).toBe(200);
    await advanceClock(ctx.gw, '61s');
    expect((await signIn(ctx.gw, owner.email, owner.password, from(address))).reply.status).toBe(200);
  });

  test("a browser that signed in before spends its address's attempts as well", async () => {
    const owner = await consoleAccount(ctx.gw);
    const address = newAddress();
    const first = await signIn(ctx.gw, owner.email, owner.password, from(address));
    expect(first.reply.status).toBe(200);
    const known = { ...from(address), cookie: first.browser };
    for (let i = 1; i < LIMIT; i++) {
      expect((await signIn(ctx.gw, owner.email, owner.password, known)).reply.status).toBe(200);
    }
    expectTooManySignIns((await signIn(ctx.gw, owner.email, owner.password, known)).reply);
  });

  test('an IPv6 client is one address per /64: stepping through its addresses gets no fresh budget; the next /64 has its own', async () => {
    const owner = await consoleAccount(ctx.gw);
    for (let i = 1; i <= LIMIT; i++) {
      const reply = (await signIn(ctx.gw, owner.email, `wrong-${i}`, from(`2001:db8:7:1::${i.toString(16)}`))).reply;
      expect(reply.status).toBe(401);
    }
    expectTooManySignIns((await signIn(ctx.gw, owner.email, owner.password, from('2001:db8:7:1:ffff::9'))).reply);
    expect((await signIn(ctx.gw, owner.email, owner.password, from('2001:db8:7:2::1'))).reply.status).toBe(200);
  });

  test('wrong API keys from one IPv6 /64 share one budget of failures: the 21st is refused, from any of its addresses', async () => {
    for (let i = 1; i <= 20; i++) {
      expectApiError(
        await request(ctx.gw, 'GET', '/v1/lists', {
          apiKey: `lck_wrong-${i}`,
          headers: from(`2001:db8:9:9:${i.toString(16)}::1`),
        }),
        401,
        'UNAUTHORIZED',
      );
    }
    const refused = await request(ctx.gw, 'GET', '/v1/lists', {
      apiKey: 'lck_wrong-21',
      headers: from('2001:db8:9:9:abcd:ef01:2345:6789'),
    });
    expectApiError(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expectApiError(
      await request(ctx.gw, 'GET', '/v1/lists', { apiKey: 'lck_wrong-22', headers: from('2001:db8:9:a::1') }),
      401,
      'UNAUTHORIZED',
    );
  });
});

describe('the password-hashing pool', () => {
  const BURST = 150;
  let hashing: Hashing;
  beforeAll(async () => {
    hashing = (await gatewayModule(
      path.resolve(__dirname, '../../gateway/dist/domain/password-hashing.js'),
    )) as Hashing;
  });

  test('takes as many checks as it has threads and queue, and refuses the others at once with 429 BUSY and Retry-After', async () => {
    const pool = new hashing.PasswordHashing(1, 2);
    try {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => pool.derive(`password-${i}`, Buffer.alloc(16, i))),
      );
      expect(outcomes.map((o) => o.status)).toEqual([...Array(3).fill('fulfilled'), ...Array(7).fill('rejected')]);
      for (const outcome of outcomes.slice(3)) {
        expect((outcome as PromiseRejectedResult).reason).toMatchObject({
          status: 429,
          code: 'BUSY',
          headers: { 'Retry-After': '1' },
          message: 'The gateway is checking many passwords at once; try again in 1 second',
        });
      }
      // Once they are done, the pool takes checks again.
      expect((await pool.derive('again', Buffer.alloc(16))).length).toBe(32);
    } finally {
      await pool.close();
    }
  });

  test('a burst of sign-ins larger than the pool: the checks it has no room for are answered 429 BUSY with Retry-After, the others checked', async () => {
    // Unknown emails from addresses of their own: no limit of the sign-in's refuses them before their password.
    // Far more at once than the pool holds (its threads and 32 waiting per thread), and than it checks while they come.
    const [derivedBefore, busyBefore] = [await passwordDerivations(ctx.gw), await passwordDerivations(ctx.gw, 'busy')];
    const burst = await Promise.all(
      Array.from(
        { length: BURST },
        async (_, i) =>
          (await signIn(ctx.gw, `nobody-${i}@burst.example`, 'a guess', from(`203.0.113.${i + 1}`))).reply,
      ),
    );
    const busy = burst.filter((reply) => reply.status === 429);
    expect(burst.filter((reply) => reply.status !== 429).map((reply) => reply.status)).toEqual(
      Array(BURST - busy.length).fill(401),
    );
    expect(busy.length).toBeGreaterThan(0);
    for (const reply of busy) {
      expect(reply.body.error).toEqual({
        code: 'BUSY',
        message: 'The gateway is checking many passwords at once; try again in 1 second',
      });
      expect(reply.headers['retry-after']).toBe('1');
    }
    // The operator sees both: each refused check, and each checked one's single derivation.
    expect(await passwordDerivations(ctx.gw, 'busy')).toBe(busyBefore + busy.length);
    expect(await passwordDerivations(ctx.gw)).toBe(derivedBefore + BURST - busy.length);
  });
});
