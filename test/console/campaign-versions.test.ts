import type { BrowserContext, Browser, Page } from 'playwright-core';
import type { TestGateway } from '../helpers/gateway';
import { api, incoming, poll } from '../gateway/api-support';
import { openPage, screenshot, seriousViolations, signInAt, startConsole, stopConsole } from './browser';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * A campaign changed by someone else while a form of it is open (in another tab, by another member, by a workflow):
 * saving the form, which sends what it loaded, does not undo that change. The save is refused, what was typed stays,
 * the page says why in plain words and offers to reload; reloaded, the save goes through beside the other change.
 */
jest.setTimeout(90_000);

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  [gw, browser] = await startConsole();
  owner = await consoleAccount(gw, { name: 'Versions Dental' });
  ({ context, page } = await openPage(browser));
  await signInAt(page, url('/console/campaigns'), owner);
});
afterAll(async () => {
  await stopConsole(gw, browser);
});

const url = (p: string) => `${gw.url}${p}`;
const v1 = (method: string, path: string, body?: unknown) =>
  api(gw, owner, method, path, body === undefined ? {} : { body });
const changedBox = (p: Page) => p.locator('.changed-elsewhere');
const CHANGED =
  'This campaign was changed after you opened it (by someone else, in another tab or elsewhere on this page), so your changes were not saved: they would have undone that change. What you typed is still in the form. Reloading shows the campaign as it is now in its place.';

test('two tabs of the campaign: the second save is refused, keeping what was typed, until the campaign is reloaded', async () => {
  const campaign = (await v1('POST', '/v1/campaigns', { name: 'Whitening', channel: 'sms' })).body;
  const address = url(`/console/campaigns?id=${campaign.id}`);
  await page.goto(address);
  const other = await context.newPage();
  await other.goto(address);
  for (const tab of [page, other]) await tab.getByLabel('Instructions', { exact: true }).waitFor();

  // The other tab adds an FAQ and saves.
  await other.getByRole('button', { name: 'Add FAQ' }).click();
  await other.getByLabel('FAQ 1: question', { exact: true }).fill('How long does whitening take?');
  await other.getByLabel('FAQ 1: answer', { exact: true }).fill('About an hour.');
  await other.getByRole('button', { name: 'Save campaign' }).click();
  await other.getByRole('status').filter({ hasText: 'Campaign saved.' }).waitFor();

  // This tab, opened before that, saves its instructions: the FAQ would be undone, so nothing is saved.
  const instructions = page.getByLabel('Instructions', { exact: true });
  await instructions.fill('Answer in two sentences at most.');
  await page.getByRole('button', { name: 'Save campaign' }).click();
  await changedBox(page).waitFor();
  expect(await changedBox(page).getByRole('alert').count()).toBe(0);
  expect(await changedBox(page).getAttribute('role')).toBe('alert');
  expect(await changedBox(page).locator('p').textContent()).toBe(CHANGED);
  expect(await page.locator('form.campaign-form .error').textContent()).toBe('');
  expect(await instructions.inputValue()).toBe('Answer in two sentences at most.');
  const held = (await v1('GET', `/v1/campaigns/${campaign.id}`)).body;
  expect(held.bot).toMatchObject({
    instructions: '',
    faqs: [{ question: 'How long does whitening take?', answer: 'About an hour.' }],
  });
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'campaign-changed-elsewhere');

  // Reloaded: the other tab's FAQ is in the form, the box is gone; the instructions typed again are saved beside it.
  await changedBox(page).getByRole('button', { name: 'Reload the campaign' }).click();
  await changedBox(page).waitFor({ state: 'detached' });
  expect(await page.getByLabel('FAQ 1: question', { exact: true }).inputValue()).toBe('How long does whitening take?');
  expect(await instructions.inputValue()).toBe('');
  await instructions.fill('Answer in two sentences at most.');
  await page.getByRole('button', { name: 'Save campaign' }).click();
  await page.getByRole('status').filter({ hasText: 'Campaign saved.' }).waitFor();
  // Saved from this tab, the form holds the version it saved: saving again needs no reload.
  await page.getByLabel('Goal', { exact: true }).fill('The contact books a whitening');
  await page.getByRole('button', { name: 'Save campaign' }).click();
  await poll(
    async () => (await v1('GET', `/v1/campaigns/${campaign.id}`)).body.bot,
    (bot) => bot.goal === 'The contact books a whitening',
    10_000,
  );
  expect(await changedBox(page).count()).toBe(0);
  expect((await v1('GET', `/v1/campaigns/${campaign.id}`)).body).toMatchObject({
    version: 4,
    bot: {
      instructions: 'Answer in two sentences at most.',
      goal: 'The contact books a whitening',
      faqs: [{ question: 'How long does whitening take?', answer: 'About an hour.' }],
    },
  });
  await other.close();
});

test('an FAQ saved from the inbox after the campaign changed is refused, then saved beside that change once reloaded', async () => {
  const original = { question: 'What are your opening hours?', answer: 'Monday to Saturday, 9 to 5.' };
  const campaign = (
    await v1('POST', '/v1/campaigns', {
      name: 'Web chat',
      channel: 'custom',
      customChannel: 'web-chat',
      bot: { faqs: [original] },
    })
  ).body;
  const written = await v1(
    'POST',
    '/v1/incoming_custom_channel_message',
    incoming({
      fromId: 'visitor-gina',
      firstName: 'Gina',
      channel: 'web-chat',
      body: 'do you sell gift cards?',
      campaignId: campaign.id,
    }),
  );
  const { conversationId, contactId } = (await v1('GET', `/v1/messages/${written.body.messageId}`)).body;
  await poll(
    async () => (await v1('GET', `/v1/conversations/${conversationId}`)).body,
    (c) => c.status === 'handed_off',
    15_000,
  );
  const replied = await v1('POST', `/v1/contacts/${contactId}/messages`, {
    conversationId,
    body: 'Yes! Gift cards from $25, at the front desk.',
  });
  expect(replied.status).toBe(201);
  await page.goto(url(`/console/inbox?c=${conversationId}`));
  const form = page.getByRole('form', { name: 'Save as FAQ' });
  await form.waitFor();
  await form.getByLabel('FAQ answer').fill('Yes: gift cards from $25, at the front desk.');

  // Meanwhile another member adds an FAQ on the Campaigns page.
  const theirs = { question: 'Do you take walk-ins?', answer: 'Yes, until 4.' };
  expect((await v1('PATCH', `/v1/campaigns/${campaign.id}`, { bot: { faqs: [original, theirs] } })).status).toBe(200);

  await form.getByRole('button', { name: 'Save as FAQ' }).click();
  await changedBox(page).waitFor();
  expect(await changedBox(page).locator('p').textContent()).toBe(
    'This campaign was changed after this page loaded it (by someone else, or in another tab), so the FAQ was not saved: saving it would have undone that change. Reload the campaign, then save the FAQ again: what you typed stays.',
  );
  expect(await form.getByLabel('FAQ answer').inputValue()).toBe('Yes: gift cards from $25, at the front desk.');
  expect((await v1('GET', `/v1/campaigns/${campaign.id}`)).body.bot.faqs).toEqual([original, theirs]);
  expect(await seriousViolations(page)).toEqual([]);

  await changedBox(page).getByRole('button', { name: 'Reload the campaign' }).click();
  await changedBox(page).waitFor({ state: 'detached' });
  expect(await form.getByLabel('FAQ question').inputValue()).toBe('do you sell gift cards?');
  expect(await form.getByLabel('FAQ answer').inputValue()).toBe('Yes: gift cards from $25, at the front desk.');
  await form.getByRole('button', { name: 'Save as FAQ' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved as an FAQ of “Web chat”' }).waitFor();
  expect((await v1('GET', `/v1/campaigns/${campaign.id}`)).body.bot.faqs).toEqual([
    original,
    theirs,
    { question: 'do you sell gift cards?', answer: 'Yes: gift cards from $25, at the front desk.' },
  ]);
});

test('an FAQ added below the form, nothing typed in it: the form shows it, and saving the form keeps it', async () => {
  const hours = { question: 'What are your opening hours?', answer: 'Monday to Saturday, 9 to 5.' };
  const campaign = (
    await v1('POST', '/v1/campaigns', {
      name: 'Implants',
      channel: 'custom',
      customChannel: 'web-chat',
      bot: { faqs: [hours] },
    })
  ).body;
  const written = await v1(
    'POST',
    '/v1/incoming_custom_channel_message',
    incoming({
      fromId: 'visitor-ivo',
      firstName: 'Ivo',
      channel: 'web-chat',
      body: 'Do implants hurt?',
      campaignId: campaign.id,
    }),
  );
  const { conversationId } = (await v1('GET', `/v1/messages/${written.body.messageId}`)).body;
  await poll(
    async () => (await v1('GET', `/v1/conversations/${conversationId}`)).body,
    (c) => c.status === 'handed_off',
    15_000,
  );
  await page.goto(url(`/console/campaigns?id=${campaign.id}`));
  const panel = page.getByRole('region', { name: 'Questions the bot could not answer' });
  await panel.getByRole('button', { name: 'Add as FAQ' }).click();
  await panel.getByLabel('FAQ answer').fill('Hardly: the area is numbed first.');
  await panel.getByRole('button', { name: 'Save FAQ' }).click();
  await panel.getByText('Answered now by the FAQ').waitFor();
  expect(await page.getByLabel('FAQ 2: question', { exact: true }).inputValue()).toBe('Do implants hurt?');

  await page.getByLabel('Name', { exact: true }).fill('Implants and crowns');
  await page.getByRole('button', { name: 'Save campaign' }).click();
  await page.getByRole('status').filter({ hasText: 'Campaign saved.' }).waitFor();
  expect((await v1('GET', `/v1/campaigns/${campaign.id}`)).body).toMatchObject({
    name: 'Implants and crowns',
    bot: { faqs: [hours, { question: 'Do implants hurt?', answer: 'Hardly: the area is numbed first.' }] },
  });
});
