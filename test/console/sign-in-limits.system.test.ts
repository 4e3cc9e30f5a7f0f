import { advanceClock, removeDir, startGateway, type Reply, type TestGateway } from '../helpers/gateway';
import { consoleAccount, signIn, type ConsoleAccount } from './support';

/**
 * Failed sign-ins, from real client addresses (127.0.0.1, 127.0.0.2, … are all this machine): guesses stay bounded
 * per address and per email, while a stranger who knows an email can neither guess its password nor lock its
 * owner out. The clock is moved, never waited for.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ LEADCHAT_TEST_CLOCK: '1' });
});
afterAll(async () => {
  await gw?.stop();
  if (gw) removeDir(gw.dataDir);
});

const OWNER = '127.0.0.1';
const STRANGER = '127.0.0.2';
/** A stranger's addresses, one per guess: the email's own budget must hold them all together. */
let spread = 0;
const anotherAddress = () => `127.0.1.${(spread++ % 250) + 1}`;

const statusOf = async (pending: Promise<{ reply: Reply }>) => (await pending).reply.status;

function expectRefused(reply: Reply, maxSeconds: number): void {
  expect({ status: reply.status, code: reply.body?.error?.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
  const seconds = Number(reply.headers['retry-after']);
  expect(Number.isInteger(seconds) && seconds >= 1 && seconds <= maxSeconds).toBe(true);
  expect(reply.body.error.message).toMatch(/^Too many failed sign-ins; try again in \d+ (second|minute)s?$/);
  expect(reply.headers['set-cookie']).toBeUndefined();
}

/** Makes `count` failed guesses at an email from many addresses, each after the turn of the one before. */
async function guessesFromEverywhere(target: ConsoleAccount, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await advanceClock(gw, '61s');
    expect(await statusOf(signIn(gw, target.email, `guess-${i}`, {}, anotherAddress()))).toBe(401);
  }
}

test('10 wrong passwords from one address hold back that address only: the owner signs in from another at once', async () => {
  const target = await consoleAccount(gw);
  for (let i = 0; i < 10; i++) expect(await statusOf(signIn(gw, target.email, `wrong-${i}`, {}, STRANGER))).toBe(401);
  // From the stranger's address even the right password is refused unchecked, for the window's 15 minutes.
  expectRefused((await signIn(gw, target.email, target.password, {}, STRANGER)).reply, 15 * 60);
  // The owner, on a browser that never signed in, from their own address.
  const owner = await signIn(gw, target.email, target.password, {}, OWNER);
  expect(owner.reply.status).toBe(200);
  expect(owner.browser).toMatch(/^__Host-leadchat_browser=[\w-]{22}\.\d+\.[\w-]{22}$/);
  expect([owner.reply.headers['set-cookie']].flat()[1]).toMatch(
    /; Path=\/; Secure; HttpOnly; SameSite=Strict; Max-Age=7776000$/,
  );
});

test('only failures count: right sign-ins leave the budget whole, and do not clear the failures before them', async () => {
  const target = await consoleAccount(gw);
  const from = '127.0.0.5';
  expect(await statusOf(signIn(gw, target.email, 'wrong-first', {}, from))).toBe(401);
  for (let i = 0; i < 12; i++) expect(await statusOf(signIn(gw, target.email, target.password, {}, from))).toBe(200);
  for (let i = 0; i < 8; i++) expect(await statusOf(signIn(gw, target.email, `wrong-${i}`, {}, from))).toBe(401);
  expect(await statusOf(signIn(gw, target.email, target.password, {}, from))).toBe(200);
  expect(await statusOf(signIn(gw, target.email, 'wrong-10th', {}, from))).toBe(401);
  expectRefused((await signIn(gw, target.email, target.password, {}, from)).reply, 15 * 60);
});

test('guesses from many addresses wait their turn, one at a time, a minute at most; a burst gets one answer', async () => {
  const target = await consoleAccount(gw);
  await guessesFromEverywhere(target, 16);
  // The 16th failure holds the email for 32 s: every attempt meanwhile, from anywhere, is refused unchecked.
  expectRefused((await signIn(gw, target.email, 'too-soon', {}, anotherAddress())).reply, 32);
  expectRefused((await signIn(gw, target.email, target.password, {}, anotherAddress())).reply, 32);
  await advanceClock(gw, '61s');
  const burst = await Promise.all(
    Array.from({ length: 20 }, (_, i) => statusOf(signIn(gw, target.email, `burst-${i}`, {}, anotherAddress()))),
  );
  expect(burst.sort()).toEqual([401, ...Array(19).fill(429)]);
  // However many failures, a turn lasts a minute at most: then the owner, even on a new browser, gets in.
  await guessesFromEverywhere(target, 5);
  const waiting = (await signIn(gw, target.email, target.password, {}, OWNER)).reply;
  expectRefused(waiting, 60);
  await advanceClock(gw, `${Number(waiting.headers['retry-after'])}s`);
  expect(await statusOf(signIn(gw, target.email, target.password, {}, OWNER))).toBe(200);
});

test("a browser that signed in before keeps its own budget: a stranger's guesses never lock it out", async () => {
  const target = await consoleAccount(gw);
  const { browser } = await signIn(gw, target.email, target.password, {}, OWNER);
  await guessesFromEverywhere(target, 25);
  // In the middle of the stranger's turn, and from the stranger's own address: the known browser gets in.
  expectRefused((await signIn(gw, target.email, target.password, {}, anotherAddress())).reply, 60);
  const again = await signIn(gw, target.email, target.password, { cookie: browser }, STRANGER);
  expect(again.reply.status).toBe(200);
  // The browser keeps its id; its proof is renewed.
  expect(again.browser.split('.')[0]).toBe(browser.split('.')[0]);
  expect(again.browser).not.toBe(browser);
  // Its own budget: 10 failures, then it too is refused.
  for (let i = 0; i < 10; i++)
    expect(await statusOf(signIn(gw, target.email, `typo-${i}`, { cookie: browser }, OWNER))).toBe(401);
  expectRefused((await signIn(gw, target.email, target.password, { cookie: browser }, OWNER)).reply, 15 * 60);
});

test('a known-browser cookie proves nothing for another email, nor when altered', async () => {
  const target = await consoleAccount(gw);
  const elsewhere = await consoleAccount(gw);
  const { browser } = await signIn(gw, elsewhere.email, elsewhere.password, {}, OWNER);
  await guessesFromEverywhere(target, 16);
  const [name, value] = browser.split('=') as [string, string];
  const altered = `${name}=${value.slice(0, -2)}${value.endsWith('AA') ? 'BA' : 'AA'}`;
  for (const cookie of [browser, altered, `${name}=forged`]) {
    expectRefused((await signIn(gw, target.email, target.password, { cookie }, OWNER)).reply, 32);
  }
});

test('50 failures from one address, whatever the emails, hold that address back; others go on', async () => {
  const target = await consoleAccount(gw);
  const sprayer = '127.0.0.3';
  for (let i = 0; i < 50; i++)
    expect(await statusOf(signIn(gw, `nobody-${i}@example.com`, 'password-spray', {}, sprayer))).toBe(401);
  expectRefused((await signIn(gw, target.email, target.password, {}, sprayer)).reply, 15 * 60);
  expect(await statusOf(signIn(gw, target.email, target.password, {}, '127.0.0.4'))).toBe(200);
});
