import type { Browser, Page } from 'playwright-core';
import { incoming, request } from '../gateway/api-support';
import type { TestGateway } from '../helpers/gateway';
import {
  HOSTILE,
  openPage,
  screenshot,
  scriptRan,
  seriousViolations,
  signInAt,
  startConsole,
  stopConsole,
} from './browser';
import { acceptInvite, consoleAccount, type ConsoleAccount } from './support';

/**
 * The team's notes in the open conversation: **Add a note** beside the reply box, the note shown among the messages
 * by time, set apart from them ("Note by Pat · only your team sees this"), and a colleague's open conversation
 * showing it within a second, live; **Delete** for its author and admins only.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let conversationId: string;
/** Pat, an agent, and the owner, each in a browser of their own, on the same conversation. */
let pat: Page;
let boss: Page;
const PAT = { email: 'pat.agent@team.example', password: 'pat-agent-long-passphrase' };

const api = (method: string, path: string, body?: unknown) => request(gw, method, path, { apiKey: owner.apiKey, body });
const write = async (body: string) => {
  const res = await api('POST', '/v1/incoming_custom_channel_message', {
    ...incoming({ fromId: 'visitor-ruth', firstName: 'Ruth', channel: 'web-chat', body }),
  });
  expect(res.status).toBe(200);
  return (await api('GET', `/v1/messages/${res.body.messageId}`)).body.conversationId as string;
};
const noteBy = (p: Page, name: string) => p.getByRole('note', { name: `Note by ${name}` });
/** What the thread shows, in order: each message's or note's text. */
const threadTexts = (p: Page) => p.locator('.inbox-msgs > li .inbox-msg-body').allTextContents();

beforeAll(async () => {
  [gw, browser] = await startConsole();
  owner = await consoleAccount(gw, { name: 'Notes Dental' });
  const invited = await api('POST', '/v1/members', { email: PAT.email, name: 'Pat', role: 'agent' });
  expect((await acceptInvite(gw, invited.body.inviteUrl, PAT.password)).reply.status).toBe(200);
  conversationId = await write('Can I get a quote for braces?');
  ({ page: pat } = await openPage(browser));
  ({ page: boss } = await openPage(browser));
  await signInAt(pat, `${gw.url}/console/inbox?c=${conversationId}`, PAT);
  await signInAt(boss, `${gw.url}/console/inbox?c=${conversationId}`, owner);
  for (const p of [pat, boss])
    await p.locator('.inbox-msg-body').filter({ hasText: 'Can I get a quote for braces?' }).waitFor();
});
afterAll(async () => {
  await stopConsole(gw, browser);
});

test("a note typed shows in the thread as the team's, not a message; a colleague's open conversation shows it within 1 s", async () => {
  const before = (await api('GET', `/v1/conversations/${conversationId}`)).body;
  const messages = await pat.locator('.inbox-msg').count();
  await pat.getByLabel('Note for your team').fill(`Wants a quote by Friday ${HOSTILE}`);
  await pat.getByRole('button', { name: 'Add note' }).click();
  await pat.getByText('Note added: only your team sees it.').waitFor();
  const mine = noteBy(pat, 'Pat');
  await mine.waitFor();
  expect(await mine.textContent()).toContain('only your team sees this');
  expect(await mine.textContent()).toContain(`Wants a quote by Friday ${HOSTILE}`);
  expect(await pat.getByLabel('Note for your team').inputValue()).toBe('');
  // The colleague's open conversation shows it, without a reload.
  const started = Date.now();
  await noteBy(boss, 'Pat').waitFor({ timeout: 1_000 });
  expect(Date.now() - started).toBeLessThan(1_000);
  // A note, not a message: the messages and the conversation are as they were.
  expect(await pat.locator('.inbox-msg').count()).toBe(messages);
  expect((await api('GET', `/v1/conversations/${conversationId}`)).body).toEqual(before);

  // The contact writes again: the note stays between the messages, by time.
  await write('Also, do you take insurance?');
  await boss.locator('.inbox-msg-body').filter({ hasText: 'do you take insurance' }).waitFor();
  const shown = await threadTexts(boss);
  const at = (text: string) => shown.findIndex((t) => t.includes(text));
  expect(at('Can I get a quote')).toBeGreaterThanOrEqual(0);
  expect(at('Wants a quote by Friday')).toBeGreaterThan(at('Can I get a quote'));
  expect(at('do you take insurance')).toBeGreaterThan(at('Wants a quote by Friday'));
  expect(await seriousViolations(pat)).toEqual([]);
  expect(await scriptRan(pat)).toBe(false);
  await screenshot(pat, 'inbox-thread-note');
});

test('Delete shows on a note for its author and admins only; deleted, it goes from the colleague’s conversation too', async () => {
  const fromWorkflow = await api('POST', `/v1/conversations/${conversationId}/notes`, { text: 'Called twice' });
  expect(fromWorkflow.status).toBe(201);
  // Written with the API key: the agent sees it, with no Delete; the owner may delete it.
  await noteBy(pat, 'a workflow (API)').waitFor({ timeout: 1_000 });
  expect(await noteBy(pat, 'a workflow (API)').getByRole('button', { name: 'Delete' }).count()).toBe(0);
  await noteBy(boss, 'a workflow (API)').getByRole('button', { name: 'Delete' }).waitFor();
  // Pat deletes their own, asked a second time: it goes from both.
  await noteBy(pat, 'Pat').getByRole('button', { name: 'Delete the note by Pat' }).click();
  await noteBy(pat, 'Pat').getByText('a deleted note cannot be brought back').waitFor();
  expect(await api('GET', `/v1/conversations/${conversationId}/notes`)).toMatchObject({
    body: { data: { length: 2 } },
  });
  await noteBy(pat, 'Pat').getByRole('button', { name: 'Delete the note', exact: true }).click();
  await noteBy(pat, 'Pat').waitFor({ state: 'detached' });
  await noteBy(boss, 'Pat').waitFor({ state: 'detached', timeout: 1_000 });
  expect((await api('GET', `/v1/conversations/${conversationId}/notes`)).body.data.map((n: any) => n.text)).toEqual([
    'Called twice',
  ]);
});
