import type { Browser, Page } from 'playwright-core';
import { api } from '../gateway/api-support';
import type { TestGateway } from '../helpers/gateway';
import { newContext, openPage, screenshot, seriousViolations, signInAt, startConsole, stopConsole } from './browser';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * A console that guides a team on its first day, in a real browser against a real gateway: a refused save names
 * every problem at once in the words of the form's labels, long texts count their characters against the API's
 * limits, and at phone width the navigation folds behind a Menu button while every table stays readable.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let page: Page;

beforeAll(async () => {
  [gw, browser] = await startConsole();
  owner = await consoleAccount(gw, { name: 'Guided Owner' });
  ({ page } = await openPage(browser));
  await signInAt(page, url('/console/campaigns?id=new'), owner);
});
afterAll(async () => {
  await stopConsole(gw, browser);
});

const url = (p: string) => `${gw.url}${p}`;
const label = (p: Page, text: string) => p.getByLabel(text, { exact: true });
const formError = () => page.locator('form.campaign-form .error');

describe('the campaign form names every problem at once, by its labels', () => {
  test('an empty name and an FAQ answer over the limit: both told, by the labels on screen', async () => {
    await page.getByRole('heading', { level: 1, name: 'New campaign' }).waitFor();
    for (const [q, a] of [
      ['Are you open on Sunday?', 'No.'],
      ['Where are you?', 'x'.repeat(5001)],
    ]) {
      await page.getByRole('button', { name: 'Add FAQ' }).click();
      const n = await page.locator('#c-faqs .row').count();
      await label(page, `FAQ ${n}: question`).fill(q!);
      await label(page, `FAQ ${n}: answer`).fill(a!);
    }
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await formError().filter({ hasText: /\S/ }).waitFor();
    expect(await formError().textContent()).toBe('Name is required; FAQ 2: answer is longer than 5,000 characters');
    expect(await page.getByRole('alert').filter({ hasText: 'Name is required' }).count()).toBe(1);
    expect((await api(gw, owner, 'GET', 'campaigns')).body.data).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'guidance-two-problems');
  });

  test('going Live without what it needs: each missing setting named by its label', async () => {
    await label(page, 'Name').fill('Chat funnel');
    await label(page, 'FAQ 2: answer').fill('On Main Street.');
    await label(page, 'Channel').selectOption('custom');
    await page.getByRole('radio', { name: 'Live' }).check();
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await formError().filter({ hasText: 'to go Live' }).waitFor();
    expect(await formError().textContent()).toBe(
      'List is required to go Live; Opening message is required to go Live; Custom channel label is required to go Live',
    );
    expect((await api(gw, owner, 'GET', 'campaigns')).body.data).toEqual([]);
  });
});

describe('long texts count their characters', () => {
  test('the count follows the typing, is read with the field, and turns to an error over the limit', async () => {
    const opening = label(page, 'Opening message');
    const counter = page.locator('#c-opening-count');
    expect(await counter.textContent()).toBe('0 / 2,000');
    await opening.fill('Hello {{first_name|there}}!');
    expect(await counter.textContent()).toBe('27 / 2,000');
    expect((await opening.getAttribute('aria-describedby'))!.split(' ')).toEqual(['c-opening-hint', 'c-opening-count']);
    expect(await opening.getAttribute('aria-invalid')).toBeNull();
    expect(await counter.getAttribute('class')).toBe('counter');
    // Nothing is said while typing under the limit: the count is read with the field, not announced.
    expect(await page.getByRole('status').filter({ hasText: 'Opening message is longer' }).count()).toBe(0);

    await opening.fill('y'.repeat(2003));
    expect(await counter.textContent()).toBe('2,003 / 2,000: 3 too many');
    expect(await counter.getAttribute('class')).toBe('counter over');
    expect(await opening.getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('status').filter({ hasText: 'Opening message is longer than 2,000 characters' }).waitFor();
    expect(await page.locator('#c-faqs-2-a-count').textContent()).toBe('15 / 5,000');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'guidance-counter-over');

    await opening.fill('Hi!');
    expect(await counter.getAttribute('class')).toBe('counter');
    expect(await opening.getAttribute('aria-invalid')).toBeNull();
  });
});

describe('at phone width (390 px)', () => {
  beforeAll(async () => {
    for (let i = 1; i <= 3; i++) {
      await api(gw, owner, 'POST', 'campaigns', {
        body: { name: `Spring offer for returning customers, wave ${i}`, channel: 'sms' },
      });
    }
  });

  test('the navigation folds behind a Menu button: it opens, Escape folds it back to the button, a page chosen folds it', async () => {
    const context = await newContext(browser, [], { width: 390, height: 800 });
    const phone = await context.newPage();
    await signInAt(phone, url('/console/campaigns'), owner);
    const menu = phone.getByRole('button', { name: 'Menu' });
    const nav = phone.locator('#console-nav');
    await menu.waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await menu.getAttribute('aria-controls')).toBe('console-nav');
    expect(await nav.getAttribute('aria-label')).toBe('Console');
    expect(await nav.isVisible()).toBe(false);
    await phone.locator('main table tbody tr').first().waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousViolations(phone)).toEqual([]);
    await screenshot(phone, 'guidance-phone-campaigns');

    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await nav.waitFor();
    expect(await nav.getByRole('link', { name: 'Lists' }).isVisible()).toBe(true);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousViolations(phone)).toEqual([]);
    await screenshot(phone, 'guidance-phone-menu-open');

    // Escape from inside the menu folds it, and focus goes back to the button.
    await nav.getByRole('link', { name: 'Inbox' }).focus();
    await phone.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await nav.isVisible()).toBe(false);
    expect(await phone.evaluate(() => document.activeElement?.textContent?.trim())).toBe('☰ Menu');

    await menu.press('Enter');
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await nav.getByRole('link', { name: 'Lists' }).click();
    await phone.waitForURL(url('/console/lists'));
    await phone.getByRole('heading', { level: 1, name: 'Lists' }).waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await nav.isVisible()).toBe(false);
    expect(await phone.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    await context.close();
  });

  test('a table scrolls in its own box, its first column kept in view; the page never widens', async () => {
    const context = await newContext(browser, [], { width: 390, height: 800 });
    const phone = await context.newPage();
    await signInAt(phone, url('/console/campaigns'), owner);
    const box = phone.locator('main .table-scroll');
    const firstCell = box.locator('tbody tr').first().locator('td').first();
    await firstCell.waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    const wide = await box.evaluate((el) => el.scrollWidth > el.clientWidth);
    expect(wide).toBe(true);
    await box.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    const [cell, region] = [await firstCell.boundingBox(), await box.boundingBox()];
    // Scrolled to its far end, the table still shows each row's name at its left edge.
    expect(Math.abs(cell!.x - region!.x)).toBeLessThan(2);
    expect(await firstCell.textContent()).toMatch(/^Spring offer for returning customers, wave \d$/);
    await screenshot(phone, 'guidance-phone-table-scrolled');

    // At a desktop width there is no Menu button, and the navigation is always in view.
    await phone.setViewportSize({ width: 1280, height: 800 });
    expect(await phone.getByRole('button', { name: 'Menu' }).isVisible()).toBe(false);
    expect(await phone.getByRole('navigation', { name: 'Console' }).isVisible()).toBe(true);
    await context.close();
  });
});

describe('Try the bot speaks in sentences', () => {
  const garage = [
    { question: 'Do you repair cars of every make?', answer: 'Yes, all makes and models.' },
    { question: 'What are your opening hours?', answer: 'Monday to Friday 8am to 6pm.' },
    { question: 'Where is the garage?', answer: 'At 1 Main Street.' },
    { question: 'How much is an oil change?', answer: '$60.' },
    { question: 'Do you offer a courtesy car?', answer: 'Yes, book it with your repair.' },
  ];
  const clinic = [
    { question: 'What are your opening hours?', answer: 'We are open Monday to Friday, 9am to 6pm.' },
    { question: 'How much does a teeth cleaning cost?', answer: 'A cleaning costs $90.' },
    { question: 'Do you accept insurance?', answer: 'Yes, we accept most dental insurance plans.' },
    { question: 'Where is the clinic?', answer: 'We are at 12 Main Street, next to the post office.' },
    { question: 'What are your opening hours on holidays?', answer: 'On public holidays we open 10am to 2pm.' },
  ];
  const answer = () => page.getByRole('region', { name: 'The bot’s answer' });
  const ask = async (question: string) => {
    await label(page, 'Question').fill(question);
    await page.getByRole('button', { name: 'Ask the bot' }).click();
    await page.getByRole('status').filter({ hasText: 'The bot answered. Nothing was sent.' }).waitFor();
    await answer().waitFor();
    return answer().innerText();
  };

  beforeAll(async () => {
    const campaign = await api(gw, owner, 'POST', 'campaigns', {
      body: { name: 'Garage', channel: 'sms', bot: { faqs: garage } },
    });
    await page.goto(url(`/console/campaigns?id=${campaign.body.id}`));
    await label(page, 'Question').waitFor();
  });

  test('one FAQ unsure of: the bot asks plainly whether it is meant, and the page says so, not "two FAQs match alike"', async () => {
    const text = await ask('do you repair boats?');
    expect(text).toContain('The bot would ask whether the contact means this FAQ, and answer it if they say yes:');
    expect(text).toContain(
      'Is this your question: Do you repair cars of every make?\nIf so, reply yes; if not, tell us more.',
    );
    expect(text).toContain(
      'The FAQ the bot asks about, as it matches only part of the question: Do you repair cars of every make?',
    );
    expect(text).not.toMatch(/alike|1\. Do you/);
    expect(text).toContain('Answered by the FAQ bot, from this campaign’s FAQs.');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'bot-test-one-option');
  });

  test('two FAQs alike: numbered choices, each said to be one of the FAQs that match alike', async () => {
    const campaign = await api(gw, owner, 'POST', 'campaigns', {
      body: { name: 'Clinic', channel: 'sms', bot: { faqs: clinic } },
    });
    await page.goto(url(`/console/campaigns?id=${campaign.body.id}`));
    const text = await ask('opening hours?');
    expect(text).toContain('The bot would offer these FAQs to choose from, and answer the one the contact picks:');
    expect(text).toContain(
      'Do you mean:\n1. What are your opening hours?\n2. What are your opening hours on holidays?\nReply with the number.',
    );
    expect(text.match(/One of the FAQs that match alike, offered to choose from/g)).toHaveLength(2);
  });

  test("a hand-off says why in a sentence, never the API's code; at phone width the answer stays within the screen", async () => {
    const text = await ask('Can I pay with bitcoin?');
    expect(await answer().locator('.handoff-reason').textContent()).toBe('no FAQ answers this with confidence');
    expect(text).toContain('The bot would hand the conversation to a person: no FAQ answers this with confidence.');
    expect(text).not.toMatch(/bot_not_confident|Answered by faq/);
    const phone = await (await newContext(browser, [], { width: 390, height: 844 })).newPage();
    await signInAt(phone, page.url(), owner);
    await label(phone, 'Question').fill('Can I pay with bitcoin?');
    await phone.getByRole('button', { name: 'Ask the bot' }).click();
    const reason = phone.locator('.handoff-reason');
    await reason.waitFor();
    const box = (await reason.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(phone, 'bot-test-handoff-phone');
    await phone.context().close();
  });

  test('STOP and HELP show what the gateway sends the contact, not an FAQ; a bot turned off, that nothing would be sent', async () => {
    const stop = await ask('STOP');
    expect(stop).toContain('This is an opt-out: the contact would be unsubscribed before the bot reads it, and told:');
    expect(stop).toContain(
      'You are unsubscribed and will get no more messages from us. Reply START to subscribe again.',
    );
    expect(stop).not.toMatch(/The bot would/);
    expect(await ask('help')).toContain(
      'Reply STOP to unsubscribe, or ask for a person and a team member will answer you.',
    );
    const campaign = await api(gw, owner, 'POST', 'campaigns', {
      body: { name: 'Quiet garage', channel: 'sms', bot: { active: false, faqs: garage } },
    });
    await page.goto(url(`/console/campaigns?id=${campaign.body.id}`));
    const off = await ask('Where is the garage?');
    expect(off).toContain(
      'Nothing would be sent: the bot is off for this campaign. The message would wait in the inbox for a person.',
    );
    expect(off).toMatch(
      /Once the bot answers again, it would answer this so:\s+The bot would answer:\s+At 1 Main Street\./,
    );
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'bot-test-bot-off');
  });
});
