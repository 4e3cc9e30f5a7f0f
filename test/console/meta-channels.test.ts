import { createHmac } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { advanceClock, api, HANDOFF_NOTICE, poll } from '../gateway/api-support';
import { StandIn, type StandInAnswer, type StandInRequest } from '../gateway/stand-in';
import { removeDir, startGateway, type TestGateway } from '../helpers/gateway';
import { untilProcessed } from '../helpers/inbound';
import { openPage, screenshot, scriptRan, seriousViolations, signInAt, startConsole, stopConsole } from './browser';
import { consoleAccount, type ConsoleAccount } from './support';
import { instagram, messenger } from '../helpers/provider-accounts';

/**
 * Messenger and Instagram in the console, in a real browser against a real gateway: Messenger connected on the
 * Channels page (shown masked, with the callback URL and verify token to give Meta) and removed; conversations that
 * came by Meta's signed webhooks shown with their channel's badge, an attachment as a link to Meta's address (never
 * loaded), a team reply tagged HUMAN_AGENT and one refused after 7 days; the channel filter; and a campaign form
 * on Messenger without an opening message. Meta's Graph API is stood in on 127.0.0.1: nothing leaves the machine.
 */
jest.setTimeout(60_000);

const ATTACHMENT = 'https://lookaside.fbsbx.com/x';
const MARTA = '7100000000000001';
const IRIS = '7100000000000002';

/** The Graph API: a contact's profile, and every message taken. */
function graphAnswer(req: StandInRequest): StandInAnswer {
  const profile = /^\/v23\.0\/(\d+)\?fields=/.exec(req.url);
  if (req.method === 'GET' && profile) {
    if (req.url.includes('first_name'))
      return { status: 200, body: { first_name: 'Marta', last_name: 'Ruiz', id: profile[1] } };
    return { status: 200, body: { name: 'Iris Bloom', username: 'iris.b', id: profile[1] } };
  }
  if (req.method === 'POST' && /\/messages$/.test(req.url))
    return { status: 200, body: { recipient_id: (req.body as any)?.recipient?.id, message_id: `m_${Date.now()}` } };
  return { status: 404, body: { error: { message: 'Unsupported request', code: 100 } } };
}

let gw: TestGateway;
let browser: Browser;
let graph: StandIn;
/** Connects Messenger in the browser. */
let setter: ConsoleAccount;
/** Has Messenger and Instagram connected, and a conversation on each. */
let owner: ConsoleAccount;
let page: Page;
let setterPage: Page;
const requests: string[] = [];

type Meta = 'messenger' | 'instagram';

/** Posts a contact's message as Meta does: the event in its envelope, signed with the app secret over the raw body. */
function postWebhook(account: ConsoleAccount, channel: Meta, sender: string, message: object) {
  const pageId = channel === 'messenger' ? messenger.pageId : instagram.instagramAccountId;
  const at = Date.now();
  const body = JSON.stringify({
    object: channel === 'messenger' ? 'page' : 'instagram',
    entry: [
      {
        id: pageId,
        time: at,
        messaging: [{ sender: { id: sender }, recipient: { id: pageId }, timestamp: at, message }],
      },
    ],
  });
  const secret = channel === 'messenger' ? messenger.appSecret : instagram.appSecret;
  return api(gw, undefined, 'POST', `channels/${channel}/${account.id}/webhook`, {
    headers: {
      'content-type': 'application/json',
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    },
    body,
  });
}

const v1 = (method: string, path: string, body?: unknown) =>
  api(gw, owner, method, path, body === undefined ? {} : { body });

beforeAll(async () => {
  graph = await new StandIn(graphAnswer).start('/v23.0');
  [gw, browser] = await startConsole({
    LEADCHAT_JOB_POLL: '100ms',
    LEADCHAT_TEST_CLOCK: '1',
    LEADCHAT_MESSENGER_API_URL: graph.url,
    LEADCHAT_INSTAGRAM_API_URL: graph.url,
  });
  [setter, owner] = await Promise.all([
    consoleAccount(gw, { name: 'Page Settings' }),
    consoleAccount(gw, { name: 'Messenger Shop' }),
  ]);
  expect((await v1('PUT', 'channels/messenger', messenger)).status).toBe(200);
  expect((await v1('PUT', 'channels/instagram', instagram)).status).toBe(200);

  expect((await postWebhook(owner, 'messenger', MARTA, { mid: 'm1', text: 'Hi' })).status).toBe(200);
  expect(
    (
      await postWebhook(owner, 'messenger', MARTA, {
        mid: 'm2',
        attachments: [{ type: 'image', payload: { url: ATTACHMENT } }],
      })
    ).status,
  ).toBe(200);
  expect((await postWebhook(owner, 'instagram', IRIS, { mid: 'ig1', text: 'Do you ship abroad?' })).status).toBe(200);
  // The webhooks were answered once taken: the contacts' messages are stored by their jobs, before the clock moves on.
  await untilProcessed(gw);
  const conversation = await poll(
    () => v1('GET', 'conversations?channel=messenger'),
    (r) => r.body.data.length === 1,
  );
  const { id: conversationId, contactId } = conversation.body.data[0];

  // Meta's windows, before anyone signs in: moving the clock on would end a session.
  await advanceClock(gw, '30h');
  const tagged = await v1('POST', `contacts/${contactId}/messages`, {
    body: 'Sorry for the wait: we open at 9.',
    conversationId,
  });
  expect(tagged.body).toMatchObject({ messageTag: 'HUMAN_AGENT' });
  await poll(
    () => v1('GET', `messages/${tagged.body.id}`),
    (r) => r.body.status === 'sent',
  );
  await advanceClock(gw, '7d');
  const late = await v1('POST', `contacts/${contactId}/messages`, { body: 'Anyone there?', conversationId });
  expect(late.body).toMatchObject({ status: 'skipped', errorCode: 'OUTSIDE_24H_WINDOW' });

  ({ page } = await openPage(browser, requests));
  ({ page: setterPage } = await openPage(browser, requests));
  await Promise.all([
    signInAt(page, url('/console/inbox'), owner),
    signInAt(setterPage, url('/console/settings/channels'), setter),
  ]);
});
afterAll(async () => {
  await graph?.close();
  await stopConsole(gw, browser);
});

const url = (p: string) => `${gw.url}${p}`;
const heading = (p: Page) => p.getByRole('heading', { level: 1 });
const conversationOn = (channel: Meta) =>
  page.locator('.inbox-item').filter({ has: page.locator(`.inbox-channel-${channel}`) });

describe('Settings › Channels', () => {
  const panel = () => setterPage.getByRole('region', { name: 'Messenger' });
  const field = (label: string) => panel().getByLabel(label, { exact: true });

  test('a Page ID that is not digits is refused next to the Messenger form, nothing saved', async () => {
    await heading(setterPage).filter({ hasText: 'Channels' }).waitFor();
    expect(await panel().locator('.current').textContent()).toBe('Not set up.');
    expect(await panel().textContent()).toContain('message_reactions');
    await field('Page ID').fill('my-page');
    await field('Page access token').fill(messenger.pageAccessToken);
    await field('App secret').fill(messenger.appSecret);
    await field('Verify token').fill(messenger.verifyToken);
    await panel().getByRole('button', { name: 'Save Messenger credentials' }).click();
    const error = panel().locator('form + .error');
    await error.filter({ hasText: /\S/ }).waitFor();
    expect(await error.textContent()).toBe('Page ID must be the Page ID Meta shows: digits only');
    expect((await api(gw, setter, 'GET', 'channels')).body.messenger).toBeNull();
  });

  test('connecting Messenger shows it masked, with the callback URL and verify token to copy into Meta', async () => {
    await field('Page ID').fill(messenger.pageId);
    await panel().getByRole('button', { name: 'Save Messenger credentials' }).click();
    await panel().getByRole('status').filter({ hasText: 'Messenger credentials saved.' }).waitFor();
    const held = (await api(gw, setter, 'GET', 'channels')).body.messenger;
    expect(held).toEqual({
      pageId: messenger.pageId,
      pageAccessToken: '••••6789',
      appSecret: '••••3333',
      verifyToken: messenger.verifyToken,
      webhooks: { webhook: `${gw.url}/v1/channels/messenger/${setter.id}/webhook` },
    });
    expect(await panel().locator('.current').textContent()).toBe(`Connected: Page ID ${messenger.pageId}.`);
    expect(await field('Callback URL').inputValue()).toBe(held.webhooks.webhook);
    expect(await field('Saved verify token').inputValue()).toBe(messenger.verifyToken);
    await panel().getByText('A token ending 6789 is saved; enter it again to save changes.').waitFor();
    // This gateway was started without LEADCHAT_PUBLIC_URL, listening on 127.0.0.1: Meta cannot call it there.
    expect((await api(gw, setter, 'GET', 'channels')).body.publicUrlConfigured).toBe(false);
    expect(await panel().locator('.warning').textContent()).toBe(
      'Meta cannot reach this address: the gateway was started without LEADCHAT_PUBLIC_URL, so it is the one the gateway listens on, a loopback address (this machine only). ' +
        'Set LEADCHAT_PUBLIC_URL to the gateway’s public https address (such as https://chat.example.com, a reverse proxy or tunnel that reaches this gateway) and restart it: the addresses here follow it.',
    );
    // The secrets never come back to the page; the other panels are untouched.
    const html = await setterPage.content();
    expect(html).not.toContain(messenger.pageAccessToken);
    expect(html).not.toContain(messenger.appSecret);
    expect(await setterPage.getByRole('region', { name: 'Instagram' }).locator('.current').textContent()).toBe(
      'Not set up.',
    );
    expect(await seriousViolations(setterPage)).toEqual([]);
    await screenshot(setterPage, 'settings-channels-messenger');
  });

  test('with LEADCHAT_PUBLIC_URL on a private network the panel names the host; on a public address it warns of nothing', async () => {
    for (const [publicUrl, warning] of [
      [
        'https://10.1.2.3:8443',
        'Meta cannot reach this address: 10.1.2.3 is a private network address. Set LEADCHAT_PUBLIC_URL',
      ],
      ['https://chat.example.com', undefined],
    ] as const) {
      const other = await startGateway({ LEADCHAT_PUBLIC_URL: publicUrl });
      try {
        const account = await consoleAccount(other, { name: 'Elsewhere' });
        expect((await api(other, account, 'PUT', 'channels/messenger', { body: messenger })).status).toBe(200);
        expect((await api(other, account, 'GET', 'channels')).body).toMatchObject({
          publicUrlConfigured: true,
          messenger: { webhooks: { webhook: `${publicUrl}/v1/channels/messenger/${account.id}/webhook` } },
        });
        const { context, page: there } = await openPage(browser);
        await signInAt(there, `${other.url}/console/settings/channels`, account);
        const messengerPanel = there.getByRole('region', { name: 'Messenger' });
        await messengerPanel.getByLabel('Callback URL', { exact: true }).waitFor();
        if (warning)
          expect((await messengerPanel.locator('.warning').textContent())!.slice(0, warning.length)).toBe(warning);
        else expect(await messengerPanel.locator('.warning').count()).toBe(0);
        await context.close();
      } finally {
        await other.stop();
        removeDir(other.dataDir);
      }
    }
  });

  test('the Messenger webhook the page shows is the one Meta reaches: its handshake answers with the saved verify token', async () => {
    const address = new URL(await field('Callback URL').inputValue());
    const challenge = await api(
      gw,
      undefined,
      'GET',
      `${address.pathname}?hub.mode=subscribe&hub.verify_token=${messenger.verifyToken}&hub.challenge=4242`,
    );
    expect(challenge.status).toBe(200);
    expect(challenge.text).toBe('4242');
  });

  test('Remove asks first, then Messenger is not set up again', async () => {
    await panel().getByRole('button', { name: 'Remove Messenger credentials' }).click();
    await panel().getByRole('button', { name: 'Remove them' }).click();
    await panel().getByRole('status').filter({ hasText: 'Messenger credentials removed.' }).waitFor();
    expect((await api(gw, setter, 'GET', 'channels')).body.messenger).toBeNull();
    expect(await panel().locator('.current').textContent()).toBe('Not set up.');
    expect(await field('Callback URL').count()).toBe(0);
  });
});

describe('Inbox', () => {
  test("Messenger and Instagram conversations carry their channel's badge, named for a screen reader", async () => {
    await heading(page).filter({ hasText: 'Inbox' }).waitFor();
    const marta = conversationOn('messenger');
    await marta.waitFor();
    expect(await marta.locator('.inbox-item-name').textContent()).toBe('Marta Ruiz');
    expect(await marta.locator('.inbox-channel').textContent()).toBe('Messenger');
    expect(await marta.locator('.inbox-channel svg').getAttribute('aria-hidden')).toBe('true');
    expect(await conversationOn('instagram').locator('.inbox-channel').textContent()).toBe('Instagram');
    // A row is named short (contact, state, time); its channel is in its description, which a screen reader reads after.
    const described = await marta.evaluate((row) =>
      row
        .getAttribute('aria-describedby')!
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent)
        .join(' '),
    );
    expect(described).toContain('Messenger');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'inbox-meta-channels');
  });

  test("a Messenger thread: the attachment a link to Meta's address, never loaded; a HUMAN_AGENT reply noted; a reply after 7 days not sent, with why", async () => {
    await conversationOn('messenger').click();
    await page.locator('#thread-heading').filter({ hasText: 'Marta Ruiz' }).waitFor();
    const facts = page.locator('.inbox-facts');
    expect(await facts.locator('.inbox-channel-messenger').textContent()).toBe('Messenger');
    await facts.getByText(`ID on Messenger`).waitFor();
    expect(await facts.textContent()).toContain(MARTA);

    // Marta's "Hi" no campaign answers, so the gateway told her a person will.
    const messages = page.locator('.inbox-msg');
    await messages.nth(4).waitFor();
    expect(await page.locator('.inbox-msg-body').allTextContents()).toEqual([
      'Hi',
      HANDOFF_NOTICE,
      '',
      'Sorry for the wait: we open at 9.',
      'Anyone there?',
    ]);
    const link = messages.nth(2).getByRole('link', { name: 'Open the image on Meta’s site (new tab)' });
    expect(await link.getAttribute('href')).toBe(ATTACHMENT);
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await page.locator('main img').count()).toBe(0);

    expect(await messages.nth(3).locator('.inbox-msg-note').textContent()).toContain(
      'Sent as a person’s reply after 24 h',
    );
    expect(await messages.nth(3).locator('.inbox-status').textContent()).toBe('Sent');
    expect(await messages.nth(4).locator('.inbox-status').textContent()).toBe('Not sent');
    expect(await messages.nth(4).locator('.inbox-msg-note').count()).toBe(0);
    const error = messages.nth(4).locator('.inbox-msg-error');
    expect(await error.locator('code').textContent()).toBe('OUTSIDE_24H_WINDOW');
    expect(await error.textContent()).toMatch(/\S.*\(OUTSIDE_24H_WINDOW\)$/);
    expect(await page.locator('#reply-body-hint').textContent()).toContain('HUMAN_AGENT');
    expect(await scriptRan(page)).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'inbox-messenger-thread');
  });

  test('the channel filter offers Messenger and Instagram, and each shows its own conversations', async () => {
    const names = () => page.locator('.inbox-item-name').allTextContents();
    const shows = (want: string[]) =>
      page.waitForFunction(
        (w) =>
          JSON.stringify([...document.querySelectorAll('.inbox-item-name')].map((e) => e.textContent).sort()) ===
          JSON.stringify(w),
        [...want].sort(),
      );
    const channel = page.getByLabel('Channel', { exact: true });
    await channel.selectOption('messenger');
    await shows(['Marta Ruiz']);
    await channel.selectOption('instagram');
    await page.waitForFunction(
      () =>
        document.querySelectorAll('.inbox-item').length === 1 &&
        document.querySelector('.inbox-item .inbox-channel-instagram') !== null,
    );
    expect(await names()).not.toContain('Marta Ruiz');
    await channel.selectOption('');
    await page.waitForFunction(() => document.querySelectorAll('.inbox-item').length === 2);
  });
});

describe('Campaigns', () => {
  const label = (text: string) => page.getByLabel(text, { exact: true });
  const NOTE =
    'Messenger lets a business answer, never write first: this campaign answers those who write to your Page.';

  test("on Messenger the form has no opening message, says why, and says the list's contacts cannot be reached first", async () => {
    const list = (await v1('POST', 'lists', { name: 'Page fans' })).body;
    await page.goto(url('/console/campaigns?id=new'));
    await heading(page).filter({ hasText: 'New campaign' }).waitFor();
    await label('Name').fill('Page answers');
    await label('List').selectOption(list.id);
    // Typed on WhatsApp, then the channel changes: nothing of it is sent.
    await label('Opening message').fill('Hello {{first_name}}');
    await label('Channel').selectOption('messenger');
    await page.getByText(NOTE).waitFor();
    // Read out with the channel chosen, as its description.
    expect(await label('Channel').getAttribute('aria-describedby')).toBe('c-channel-note');
    expect(await page.locator('#c-channel-note').textContent()).toBe(NOTE);
    expect(await page.locator('#c-opening').count()).toBe(0);
    expect(await page.locator('#c-opening-template').count()).toBe(0);
    expect(await label('Trigger on new contacts added to the list').count()).toBe(0);
    expect(await page.locator('#c-list-hint').textContent()).toBe(
      'Messenger contacts added to this list cannot be reached first: they hear from this campaign once they write to your Page.',
    );
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'campaign-messenger');

    await label('Channel').selectOption('instagram');
    await page
      .getByText(
        'Instagram lets a business answer, never write first: this campaign answers those who write to your Instagram account.',
      )
      .waitFor();
    await label('Channel').selectOption('whatsapp');
    expect(await label('Opening message').inputValue()).toBe('Hello {{first_name}}');
    await label('Channel').selectOption('messenger');

    await page.getByRole('radio', { name: 'Live' }).check();
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('status').filter({ hasText: 'Campaign created. Try its bot below.' }).waitFor();
    const id = new URL(page.url()).searchParams.get('id')!;
    expect((await v1('GET', `campaigns/${id}`)).body).toEqual(
      expect.objectContaining({
        channel: 'messenger',
        status: 'live',
        openingMessage: null,
        openingTemplate: null,
        listId: list.id,
      }),
    );
    await page.getByText(NOTE).waitFor();
    expect(await page.getByRole('heading', { name: 'Preview the opening message' }).count()).toBe(0);
  });
});

test('everything the browser loaded came from the gateway itself; the Graph API stand-in was the only third party the gateway called', () => {
  expect(requests.length).toBeGreaterThan(0);
  expect(requests.filter((r) => !r.startsWith(gw.url))).toEqual([]);
  expect(graph.requests.length).toBeGreaterThan(0);
});
