import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { request, type TestGateway } from '../helpers/gateway';
import {
  HOSTILE,
  newContext,
  openPage,
  screenshot,
  scriptRan,
  seriousViolations,
  startConsole,
  stopConsole,
  untilTitled,
} from './browser';
import { consoleAccount, signIn, type ConsoleAccount } from './support';
import { gatewayModule } from '../helpers/gateway-modules';

/**
 * The web console in a real browser against a real gateway: sign-in and sign-out, the pages refused without a
 * session, the CSRF token, one account never reaching another's data, values holding markup shown as text and
 * never run, the settings forms saving what the API then holds, keyboard use, phone width, and axe-core.
 */
jest.setTimeout(60_000);

const PAGES = [
  { path: '/console/settings/account', title: 'Account', shot: 'settings-account' },
  { path: '/console/settings/webhook', title: 'Custom Channel Webhook', shot: 'settings-webhook' },
  { path: '/console/settings/bot', title: 'Bot provider', shot: 'settings-bot' },
  { path: '/console/settings/channels', title: 'Channels', shot: 'settings-channels' },
  { path: '/console/settings/members', title: 'Members', shot: 'settings-members' },
  { path: '/console/settings/saved-replies', title: 'Saved replies', shot: 'settings-saved-replies-empty' },
  { path: '/console/settings/activity', title: 'Activity', shot: 'settings-activity' },
];

type PagesModule = typeof import('../../gateway/src/console/pages.js', { with: { 'resolution-mode': 'import' } });

let gw: TestGateway;
let browser: Browser;
/** Every page of the console, as its navigation lists them. */
let CONSOLE_PAGES: PagesModule['PAGES'];
let owner: ConsoleAccount;
let other: ConsoleAccount;
/** The owner's signed-in browser, shared by the tests that work inside the console. */
let context: BrowserContext;
let page: Page;
const requests: string[] = [];

beforeAll(async () => {
  CONSOLE_PAGES = ((await gatewayModule(path.resolve(__dirname, '../../gateway/dist/console/pages.js'))) as PagesModule)
    .PAGES;
  [gw, browser] = await startConsole();
  owner = await consoleAccount(gw, { name: `Dental ${HOSTILE}` });
  other = await consoleAccount(gw, { name: 'Other Business' });
  ({ context, page } = await openPage(browser, requests));
});
afterAll(async () => {
  await stopConsole(gw, browser);
});

const url = (p: string) => `${gw.url}${p}`;
const heading = (p: Page) => p.getByRole('heading', { level: 1 });

async function signInWithForm(p: Page, email: string, password: string): Promise<void> {
  await p.getByLabel('Email', { exact: true }).fill(email);
  await p.getByLabel('Password', { exact: true }).fill(password);
  await p.getByRole('button', { name: 'Sign in' }).click();
}

describe('signing in', () => {
  test('sign-in leads back to the page asked for, query and all, and never off the console', async () => {
    const other = await newContext(browser);
    const p = await other.newPage();
    await p.goto(url('/console/inbox?c=cnv_deep1'));
    expect(new URL(p.url()).pathname).toBe('/console/sign-in');
    await signInWithForm(p, owner.email, owner.password);
    await p.waitForURL(url('/console/inbox?c=cnv_deep1'));
    await p.getByRole('button', { name: 'Sign out' }).click();
    await p.waitForURL((u) => u.pathname === '/console/sign-in');
    for (const next of ['https://evil.example/', '//evil.example/x', '/console/inbox?c=<x>']) {
      await p.goto(url(`/console/sign-in?next=${encodeURIComponent(next)}`));
      await signInWithForm(p, owner.email, owner.password);
      await p.waitForURL((u) => u.origin === new URL(gw.url).origin && u.pathname === '/console/inbox');
      await p.getByRole('button', { name: 'Sign out' }).click();
      await p.waitForURL((u) => u.pathname === '/console/sign-in');
    }
    await other.close();
  });

  test('a page asked for without a session leads to sign-in; a wrong password is refused without saying which part', async () => {
    await page.goto(url('/console/settings/bot'));
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    expect(await heading(page).textContent()).toBe('Sign in to LeadChat');
    await screenshot(page, 'sign-in');

    const refusal = page.getByRole('alert').filter({ hasText: /\S/ });
    await signInWithForm(page, owner.email, 'not the right password');
    await refusal.waitFor();
    const wrongPassword = await refusal.textContent();
    await signInWithForm(page, `nobody-${Date.now()}@example.com`, owner.password);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.waitForFunction(() => !document.querySelector('button[type=submit]')?.hasAttribute('aria-disabled'));
    expect(await refusal.textContent()).toBe(wrongPassword);
    expect(wrongPassword).toBe('The email or the password is not right');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'sign-in-refused');

    await signInWithForm(page, owner.email, owner.password);
    await page.waitForURL(url('/console/settings/bot'));
    expect(await heading(page).textContent()).toBe('Bot provider');
  });

  test("a refused sign-in (429) shows the gateway's own words, the wait among them", async () => {
    const target = await consoleAccount(gw);
    // 10 failures for the email from this machine's address hold the email back from it for 15 minutes.
    for (let i = 0; i < 10; i++) expect((await signIn(gw, target.email, `wrong-${i}`)).reply.status).toBe(401);
    const fresh = await newContext(browser);
    const p = await fresh.newPage();
    await p.goto(url('/console/sign-in'));
    await signInWithForm(p, target.email, target.password);
    const refusal = p.getByRole('alert').filter({ hasText: /\S/ });
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/^Too many failed sign-ins; try again in 1[45] minutes$/);
    await fresh.close();
  });

  test('the account name, markup and all, is shown as text and its script never runs', async () => {
    await page.goto(url('/console/settings/account'));
    await heading(page).waitFor();
    expect(await page.locator('header .name').textContent()).toBe(`Dental ${HOSTILE}`);
    expect(await page.locator('dd').first().textContent()).toBe(`Dental ${HOSTILE}`);
    expect(await page.locator('main img, header img').count()).toBe(0);
    expect(await scriptRan(page)).toBe(false);
  });

  test('the Content-Security-Policy stops inline handlers even if markup got into the page', async () => {
    await page.evaluate(() => {
      document.body.insertAdjacentHTML(
        'beforeend',
        '<img id="csp-probe" src="data:," onload="window.__xss=1" onerror="window.__xss=1">',
      );
    });
    await page.waitForTimeout(200);
    expect(await scriptRan(page)).toBe(false);
    await page.evaluate(() => document.getElementById('csp-probe')?.remove());
  });
});

describe('every page', () => {
  test.each(PAGES)(
    '$title: reached from the navigation, no serious accessibility violation, screenshot',
    async ({ path, title, shot }) => {
      await page.goto(url('/console/settings/account'));
      await heading(page).waitFor();
      await page.getByRole('navigation').getByRole('link', { name: title }).click();
      await page.waitForURL(url(path));
      await heading(page).filter({ hasText: title }).waitFor();
      await page.locator('main').getByRole('button').first().waitFor();
      await untilTitled(page, title);
      expect(await page.getByRole('link', { name: title }).getAttribute('aria-current')).toBe('page');
      await screenshot(page, shot);
    },
  );

  test.each(PAGES)('$title: readable at phone width, nothing wider than the screen', async ({ path, shot }) => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 375, height: 740 });
    await phone.goto(url(path));
    await phone.locator('main').getByRole('button').first().waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousViolations(phone)).toEqual([]);
    await screenshot(phone, `${shot}-phone`);
    await phone.close();
  });

  test('an unknown page says so inside the console, with the navigation', async () => {
    await page.goto(url('/console/settings/nothing-here'));
    expect(await heading(page).textContent()).toBe('Page not found');
    expect(await page.getByRole('navigation').getByRole('link').count()).toBe(
      CONSOLE_PAGES.filter((p) => !p.agencyOnly).length,
    );
  });

  test("usable by keyboard: skip link first, the navigation by Tab and Enter, focus on the new page's heading", async () => {
    await page.goto(url('/console/settings/account'));
    await heading(page).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    let found = false;
    for (let i = 0; i < 10 && !found; i++) {
      await page.keyboard.press('Tab');
      found = (await page.evaluate(() => document.activeElement?.textContent)) === 'Channels';
    }
    expect(found).toBe(true);
    await page.keyboard.press('Enter');
    await page.waitForURL(url('/console/settings/channels'));
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Channels');
  });
});

describe('Settings', () => {
  test('API key: Generate shows a new key once; it works and the old one gets 401 at once', async () => {
    expect((await request(gw, 'GET', '/v1/settings', { apiKey: owner.apiKey })).status).toBe(200);
    await page.goto(url('/console/settings/account'));
    await page.getByRole('button', { name: 'Generate new API key' }).click();
    // The second step has focus: Enter confirms.
    await page.waitForFunction(() => document.activeElement?.textContent === 'Generate and replace the current key');
    await page.keyboard.press('Enter');
    const shown = page.getByLabel('Your new API key', { exact: true });
    await shown.waitFor();
    const newKey = await shown.inputValue();
    expect(newKey).toMatch(/^lck_/);
    await page.getByRole('status').filter({ hasText: 'the previous one no longer works' }).waitFor();
    await screenshot(page, 'settings-api-key-generated');
    expect((await request(gw, 'GET', '/v1/settings', { apiKey: newKey })).status).toBe(200);
    expect((await request(gw, 'GET', '/v1/settings', { apiKey: owner.apiKey })).status).toBe(401);
    owner.apiKey = newKey;
    await page.reload();
    await heading(page).waitFor();
    expect(await page.getByLabel('Your new API key', { exact: true }).count()).toBe(0);
    expect(await page.content()).not.toContain(newKey);
  });

  test('Custom Channel Webhook: saves the URL, shows it as text, refuses a bad one next to the form, rotates the secret', async () => {
    await page.goto(url('/console/settings/webhook'));
    const field = page.getByLabel('Webhook URL', { exact: true });
    const hostileUrl = `https://example.com/hook?note=${HOSTILE}`;
    await field.fill(hostileUrl);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Webhook URL saved.' }).waitFor();
    const held = (await request(gw, 'GET', '/v1/settings', { apiKey: owner.apiKey })).body;
    expect(held.customChannelWebhookUrl).toBe(hostileUrl);
    expect(await page.locator('.current .value').textContent()).toBe(hostileUrl);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await scriptRan(page)).toBe(false);

    await page.reload();
    expect(await page.getByLabel('Webhook URL', { exact: true }).inputValue()).toBe(hostileUrl);
    expect(await page.getByRole('textbox', { name: 'Signing secret' }).inputValue()).toBe(held.webhookSecret);

    await page.getByLabel('Webhook URL', { exact: true }).fill('ftp://example.com/files');
    await page.getByRole('button', { name: 'Save' }).click();
    const error = page.locator('form .error');
    await error.filter({ hasText: /\S/ }).waitFor();
    expect(await error.textContent()).toBe('Webhook URL must be an http(s) URL');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'settings-webhook-error');
    expect((await request(gw, 'GET', '/v1/settings', { apiKey: owner.apiKey })).body.customChannelWebhookUrl).toBe(
      hostileUrl,
    );

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Rotate now' }).click();
    await page.getByRole('status').filter({ hasText: 'A new signing secret is in use.' }).waitFor();
    const rotated = (await request(gw, 'GET', '/v1/settings', { apiKey: owner.apiKey })).body.webhookSecret;
    expect(rotated).not.toBe(held.webhookSecret);
    expect(await page.getByRole('textbox', { name: 'Signing secret' }).inputValue()).toBe(rotated);
    // The replaced secret still signs for a day, which the page says, without showing it.
    await page
      .getByText(/^The previous secret also signs every reply until .+: put the new one into your receiver/)
      .waitFor();
    expect(await page.content()).not.toContain(held.webhookSecret);
  });

  test('Bot provider: saves an OpenAI-compatible endpoint, the key shown masked, a model name with markup as text', async () => {
    await page.goto(url('/console/settings/bot'));
    await page.getByLabel('OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio)', { exact: true }).check();
    await page.getByLabel('Base URL', { exact: true }).fill('http://localhost:11434/v1');
    await page.getByLabel('Model', { exact: true }).fill(`llama ${HOSTILE}`);
    await page.getByLabel('API key', { exact: true }).fill('sk-test-0123456789abcd');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Bot settings saved.' }).waitFor();
    const held = (await request(gw, 'GET', '/v1/settings/bot', { apiKey: owner.apiKey })).body;
    expect(held).toEqual({
      provider: 'openai',
      openai: { baseUrl: 'http://localhost:11434/v1', model: `llama ${HOSTILE}`, apiKey: '••••abcd' },
      defaultCampaignId: null,
    });
    expect(await page.locator('.current').filter({ hasText: 'Now answering' }).textContent()).toContain(
      `the model llama ${HOSTILE} at http://localhost:11434/v1`,
    );
    expect(await page.content()).not.toContain('sk-test-0123456789abcd');
    expect(await page.locator('main img').count()).toBe(0);
    expect(await scriptRan(page)).toBe(false);

    await page.reload();
    expect(await page.getByLabel('Model', { exact: true }).inputValue()).toBe(`llama ${HOSTILE}`);
    expect(await page.getByLabel('API key', { exact: true }).inputValue()).toBe('');
    expect(await page.getByText('A key ending abcd is saved.').count()).toBe(1);
    await screenshot(page, 'settings-bot-openai');

    // An empty key field keeps the saved key; a bad model name is refused next to the form.
    await page.getByLabel('Model', { exact: true }).fill('x'.repeat(201));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('.error').filter({ hasText: /\S/ }).waitFor();
    expect(await page.locator('.error').filter({ hasText: /\S/ }).textContent()).toBe(
      'Model is longer than 200 characters',
    );
    await page.getByLabel('Model', { exact: true }).fill('llama3.2');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Bot settings saved.' }).waitFor();
    expect((await request(gw, 'GET', '/v1/settings/bot', { apiKey: owner.apiKey })).body.openai).toEqual({
      baseUrl: 'http://localhost:11434/v1',
      model: 'llama3.2',
      apiKey: '••••abcd',
    });

    await page.getByLabel('FAQ bot (built in, no external service)', { exact: true }).check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Bot settings saved.' }).waitFor();
    expect((await request(gw, 'GET', '/v1/settings/bot', { apiKey: owner.apiKey })).body.provider).toBe('faq');
  });

  test('Channels: Twilio credentials save and show the webhook addresses; a bad WhatsApp secret is refused next to its form', async () => {
    await page.goto(url('/console/settings/channels'));
    const sid = `AC${'0123456789abcdef'.repeat(2)}`;
    await page.getByLabel('Account SID', { exact: true }).fill(sid);
    await page.getByLabel('Auth token', { exact: true }).fill('fedcba9876543210'.repeat(2));
    await page.getByLabel('SMS sender number', { exact: true }).fill('+14155550123');
    await page.getByRole('button', { name: 'Save Twilio credentials' }).click();
    await page.getByRole('status').filter({ hasText: 'Twilio credentials saved.' }).waitFor();
    const held = (await request(gw, 'GET', '/v1/channels', { apiKey: owner.apiKey })).body;
    expect(held.twilio).toEqual(
      expect.objectContaining({ accountSid: sid, authToken: '••••3210', from: '+14155550123' }),
    );
    expect(await page.getByLabel('Incoming message webhook', { exact: true }).inputValue()).toBe(
      held.twilio.webhooks.incoming,
    );
    expect(await page.getByLabel('Status callback URL', { exact: true }).inputValue()).toBe(
      held.twilio.webhooks.status,
    );
    expect(await page.content()).not.toContain('fedcba9876543210fedcba9876543210');

    // Meta's three platforms ask for fields of the same names: each in its own panel.
    const whatsapp = page.getByRole('region', { name: 'WhatsApp Cloud API' });
    await whatsapp.getByLabel('Phone number ID', { exact: true }).fill('1234567890');
    await whatsapp.getByLabel('Access token', { exact: true }).fill('EAAtoken');
    await whatsapp.getByLabel('App secret', { exact: true }).fill('not-hex');
    await whatsapp.getByLabel('Verify token', { exact: true }).fill('verify-me-please');
    await page.getByRole('button', { name: 'Save WhatsApp credentials' }).click();
    const error = page.locator('#whatsapp-heading ~ form + .error');
    await error.filter({ hasText: /\S/ }).waitFor();
    expect(await error.textContent()).toBe('App secret must be the Meta app secret: 32 hex characters');
    expect((await request(gw, 'GET', '/v1/channels', { apiKey: owner.apiKey })).body.whatsapp).toBeNull();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'settings-channels-twilio');

    await page.getByRole('button', { name: 'Remove Twilio credentials' }).click();
    await page.getByRole('button', { name: 'Remove them' }).click();
    await page.getByRole('status').filter({ hasText: 'Twilio credentials removed.' }).waitFor();
    expect((await request(gw, 'GET', '/v1/channels', { apiKey: owner.apiKey })).body.twilio).toBeNull();
  });
});

describe('the session and the API', () => {
  test('a change without the CSRF token is refused with 403; with it, it goes through', async () => {
    await page.goto(url('/console/settings/account'));
    const outcome = await page.evaluate(async () => {
      const put = (headers: Record<string, string>) =>
        fetch('/v1/settings', {
          method: 'PUT',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ helpText: 'Call us' }),
        }).then((r) => r.status);
      const session = await fetch('/console/api/session').then((r) => r.json());
      return {
        without: await put({}),
        wrong: await put({ 'x-csrf-token': 'a'.repeat(64) }),
        with: await put({ 'x-csrf-token': session.csrfToken }),
      };
    });
    expect(outcome).toEqual({ without: 403, wrong: 403, with: 200 });
  });

  test("one account's session cannot read or change another account's data", async () => {
    const contact = await request(gw, 'POST', '/v1/contacts', {
      apiKey: other.apiKey,
      body: { phone: '+15550104242', firstName: 'Olga' },
    });
    const theirs = await request(gw, 'GET', '/v1/settings', { apiKey: other.apiKey });
    await page.goto(url('/console/settings/webhook'));
    const seen = await page.evaluate(async (contactId) => {
      const session = await fetch('/console/api/session').then((r) => r.json());
      const headers = { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken };
      return {
        contact: (await fetch(`/v1/contacts/${contactId}`)).status,
        message: (
          await fetch(`/v1/contacts/${contactId}/messages`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ body: 'hi' }),
          })
        ).status,
        settings: await fetch('/v1/settings').then((r) => r.json()),
      };
    }, contact.body.id);
    expect(seen.contact).toBe(404);
    expect(seen.message).toBe(404);
    expect(seen.settings.webhookSecret).not.toBe(theirs.body.webhookSecret);
    expect((await request(gw, 'GET', '/v1/settings', { apiKey: other.apiKey })).body).toEqual(theirs.body);
  });

  test('without a session, every page leads to sign-in and every API call gets 401', async () => {
    const stranger = await newContext(browser, requests);
    const p = await stranger.newPage();
    for (const { path } of PAGES) {
      await p.goto(url(path));
      expect(new URL(p.url()).pathname).toBe('/console/sign-in');
      expect(new URL(p.url()).searchParams.get('next')).toBe(path);
    }
    const statuses = await p.evaluate(async () => {
      const json = { 'content-type': 'application/json' };
      return Promise.all(
        [
          fetch('/v1/settings'),
          fetch('/v1/settings/bot'),
          fetch('/v1/channels'),
          fetch('/v1/api-key', { method: 'POST' }),
          fetch('/v1/settings', { method: 'PUT', headers: json, body: JSON.stringify({ helpText: 'x' }) }),
          fetch('/console/api/session'),
        ].map((r) => r.then((res) => res.status)),
      );
    });
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401]);
    await stranger.close();
  });

  test('sign-out ends the session: the pages lead to sign-in again and the old cookie gets 401', async () => {
    await page.goto(url('/console/settings/account'));
    const save = page.getByRole('button', { name: 'Set default country' });
    await save.waitFor();
    // The page asks something after the session ended and before the sign-out's own answer is read: that 401 leads
    // nowhere (not to a sign-in that would come back here), the sign-out does.
    await page.route('**/console/api/session', async (route) => {
      if (route.request().method() !== 'DELETE') return route.continue();
      const ended = await route.fetch();
      const refused = page.waitForResponse((r) => r.url().endsWith('/v1/settings') && r.status() === 401);
      await save.click();
      await refused;
      await route.fulfill({ response: ended });
    });
    const cookie = (await context.cookies(gw.url)).find((c) => c.name === '__Host-leadchat_session');
    expect(cookie).toEqual(
      expect.objectContaining({
        name: '__Host-leadchat_session',
        httpOnly: true,
        secure: true,
        sameSite: 'Strict',
        path: '/',
      }),
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(url('/console/sign-in'));
    await page.unroute('**/console/api/session');
    // The session's cookie is gone; the browser stays known for its next sign-in.
    expect((await context.cookies(gw.url)).map((c) => c.name)).toEqual(['__Host-leadchat_browser']);
    await page.goto(url('/console/settings/account'));
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    const replay = await request(gw, 'GET', '/v1/settings', {
      headers: { cookie: `${cookie!.name}=${cookie!.value}` },
    });
    expect(replay.status).toBe(401);
  });

  test('everything the console loaded came from the gateway itself', () => {
    const origins = new Set(requests.map((r) => new URL(r).origin));
    expect([...origins]).toEqual([gw.url]);
  });
});
