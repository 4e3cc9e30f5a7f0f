import type { Browser, BrowserContext, Page } from 'playwright-core';
import { api, poll, uniquePhone } from '../gateway/api-support';
import { untilIdle, type TestGateway } from '../helpers/gateway';
import {
  HOSTILE,
  newContext,
  openPage,
  screenshot,
  scriptRan,
  seriousViolations,
  signInAt,
  startConsole,
  stopConsole,
  untilTitled,
} from './browser';
import { consoleAccount, teamMember, type ConsoleAccount } from './support';

/**
 * The Campaigns page in a real browser against a real gateway: the campaigns a page at a time, every setting of
 * a campaign created and changed through the form and then held by the API, the API's refusal to go Live shown
 * next to the form, the opening message previewed for a contact found by phone or email, and the bot tried
 * without anything sent; values holding markup shown as text and never run.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let context: BrowserContext;
let page: Page;
let list: { id: string; name: string };
/** The campaign the form created, for the tests after it. */
let campaignId: string;

beforeAll(async () => {
  [gw, browser] = await startConsole();
  owner = await consoleAccount(gw, { name: 'Campaigns Owner' });
  list = (await api(gw, owner, 'POST', 'lists', { body: { name: `Spring ${HOSTILE}` } })).body;
  ({ context, page } = await openPage(browser));
  await signInAt(page, url('/console/campaigns'), owner);
});
afterAll(async () => {
  await stopConsole(gw, browser);
});

const url = (p: string) => `${gw.url}${p}`;
const heading = (p: Page) => p.getByRole('heading', { level: 1 });
const v1 = (method: string, path: string, body?: unknown) =>
  api(gw, owner, method, path, body === undefined ? {} : { body });
const label = (text: string) => page.getByLabel(text, { exact: true });
const status = (text: string) => page.getByRole('status').filter({ hasText: text });
const settingsError = () => page.locator('form.campaign-form .error');

describe('the campaigns', () => {
  test('reached from the navigation, empty at first; axe and screenshot', async () => {
    await page.goto(url('/console/settings/account'));
    await heading(page).waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'Campaigns' }).click();
    await page.waitForURL(url('/console/campaigns'));
    await heading(page).filter({ hasText: 'Campaigns' }).waitFor();
    await page.getByText('No campaigns yet.').waitFor();
    await untilTitled(page, 'Campaigns');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'campaigns-empty');
  });

  test('a new campaign with every setting: the API holds exactly what the form was given', async () => {
    await page.getByRole('button', { name: 'New campaign' }).click();
    await heading(page).filter({ hasText: 'New campaign' }).waitFor();
    expect(new URL(page.url()).searchParams.get('id')).toBe('new');

    await label('Name').fill(`Dental ${HOSTILE}`);
    await label('Type').selectOption('outgoing');
    await label('Language').fill('es-MX');
    expect(await label('Trigger on new contacts added to the list').isChecked()).toBe(false);
    await label('List').selectOption(list.id);
    // Linked to a list, a new campaign triggers on its new contacts unless the user says otherwise.
    expect(await label('Trigger on new contacts added to the list').isChecked()).toBe(true);
    await label('Channel').selectOption('whatsapp');
    await label('Opening message').fill('Hola {{first_name|there}}, ¿te llamamos?');
    await label('Opening template').fill('dental_intro');
    await page.getByRole('button', { name: 'Add parameter' }).first().click();
    // The new row's field has focus: typing goes straight into it.
    await page.keyboard.type('{{first_name}}');
    await page.getByRole('button', { name: 'Add parameter' }).first().click();
    await label('Parameter {{2}}').first().fill('Smile Dental');
    await label('Re-engagement template').fill('dental_back');
    await page.getByRole('button', { name: 'Add parameter' }).last().click();
    await page.locator('#c-reengagement-params-1').fill('{{first_name|friend}}');
    await label('Template language').fill('es_MX');
    await label('Send rate').fill('20/m');
    await label('Send only within a sending window').check();
    await label('From').fill('09:00');
    await label('Until').fill('19:30');
    await label('Time zone').fill('America/Mexico_City');
    // The days are a group of seven checkboxes, every day at first; the keyboard leaves out the weekend.
    const days = page.getByRole('group', { name: 'Days' }).getByRole('checkbox');
    expect(await days.count()).toBe(7);
    for (const day of await days.all()) expect(await day.isChecked()).toBe(true);
    await label('Saturday').focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    expect(await label('Sunday').isChecked()).toBe(false);
    await label('Send follow-ups to contacts who do not answer').check();
    await page.getByRole('button', { name: 'Add step' }).click();
    await label('Step 1: wait').fill('2h');
    await label('Step 1: message').fill('¿Sigues interesado?');
    await page.getByRole('button', { name: 'Add step' }).click();
    await label('Step 2: wait').fill('1d');
    await label('Step 2: message').fill('Último aviso');
    await label('Instructions').fill('Be brief and friendly.');
    await label('Company information').fill('Smile Dental, Calle 5, CDMX.');
    for (const [q, a] of [
      ['What are your opening hours?', 'Monday to Friday, 9 to 19.'],
      ['Do you take walk-ins?', 'No, book first.'],
      ['How much is a cleaning?', '500 MXN.'],
    ]) {
      await page.getByRole('button', { name: 'Add FAQ' }).click();
      const n = await page.locator('#c-faqs .row').count();
      await label(`FAQ ${n}: question`).fill(q!);
      await label(`FAQ ${n}: answer`).fill(a!);
    }
    await page.getByRole('button', { name: 'Remove FAQ 2' }).click();
    // Focus goes back to Add so the keyboard user is not lost.
    await page.waitForFunction(() => document.activeElement?.textContent === 'Add FAQ');
    await page.getByRole('button', { name: 'Add resource' }).click();
    await page.getByRole('textbox', { name: 'Resource 1' }).fill('Booking page: https://smile.example/book');
    await label('Goal').fill('The contact books a visit');
    await label('Hand-off message').fill('Ana, de recepción, te escribe en unos minutos.');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'campaign-new');

    await page.getByRole('button', { name: 'Create campaign' }).click();
    await status('Campaign created.').waitFor();
    await heading(page)
      .filter({ hasText: `Dental ${HOSTILE}` })
      .waitFor();
    campaignId = new URL(page.url()).searchParams.get('id')!;
    expect(campaignId).toMatch(/^cmp_/);
    const held = (await v1('GET', `campaigns/${campaignId}`)).body;
    expect(held).toEqual(
      expect.objectContaining({
        name: `Dental ${HOSTILE}`,
        type: 'outgoing',
        language: 'es-MX',
        listId: list.id,
        channel: 'whatsapp',
        customChannel: null,
        openingTemplate: 'dental_intro',
        openingTemplateParams: ['{{first_name}}', 'Smile Dental'],
        reengagementTemplate: 'dental_back',
        reengagementTemplateParams: ['{{first_name|friend}}'],
        templateLanguage: 'es_MX',
        openingMessage: 'Hola {{first_name|there}}, ¿te llamamos?',
        triggerOnNewContacts: true,
        status: 'draft',
        sendRate: '20/m',
        sendingWindow: {
          start: '09:00',
          end: '19:30',
          timezone: 'America/Mexico_City',
          days: ['mon', 'tue', 'wed', 'thu', 'fri'],
        },
        followUps: {
          enabled: true,
          steps: [
            { after: '2h', body: '¿Sigues interesado?' },
            { after: '1d', body: 'Último aviso' },
          ],
        },
        bot: {
          active: true,
          instructions: 'Be brief and friendly.',
          companyInfo: 'Smile Dental, Calle 5, CDMX.',
          faqs: [
            { question: 'What are your opening hours?', answer: 'Monday to Friday, 9 to 19.' },
            { question: 'How much is a cleaning?', answer: '500 MXN.' },
          ],
          resources: ['Booking page: https://smile.example/book'],
          goal: 'The contact books a visit',
          handoffMessage: 'Ana, de recepción, te escribe en unos minutos.',
        },
      }),
    );
    expect(await page.locator('main img').count()).toBe(0);
    expect(await scriptRan(page)).toBe(false);

    // A reload opens the same campaign, every field as the API holds it.
    await page.reload();
    await heading(page).filter({ hasText: 'Dental' }).waitFor();
    expect(await label('Name').inputValue()).toBe(`Dental ${HOSTILE}`);
    expect(await label('Time zone').inputValue()).toBe('America/Mexico_City');
    expect(await label('Friday').isChecked()).toBe(true);
    expect(await label('Saturday').isChecked()).toBe(false);
    expect(await label('FAQ 2: question').inputValue()).toBe('How much is a cleaning?');
    expect(await label('Step 2: wait').inputValue()).toBe('1d');
    // The list's name comes with the lists, which may load after the campaign: its id stands in until then.
    await page.waitForFunction(() =>
      document.querySelector('#c-list option:checked')?.textContent?.startsWith('Spring'),
    );
    expect(await page.locator('#c-list option:checked').textContent()).toBe(`Spring ${HOSTILE}`);
    await screenshot(page, 'campaign-edit');
  });

  test('WhatsApp follow-ups without a re-engagement template: the form says which are skipped, until one is given', async () => {
    const warning = status('Without a re-engagement template');
    expect(await warning.count()).toBe(0);
    await label('Re-engagement template').fill('');
    await warning.waitFor();
    expect(await warning.textContent()).toContain('every follow-up to a contact who has not answered the opening');
    await label('Send follow-ups to contacts who do not answer').uncheck();
    await warning.waitFor({ state: 'detached' });
    await label('Send follow-ups to contacts who do not answer').check();
    await warning.waitFor();
    await label('Re-engagement template').fill('dental_back');
    await warning.waitFor({ state: 'detached' });
  });

  test("the API's refusals next to the form: a bad follow-up delay, then Live without a list (CAMPAIGN_CANNOT_SEND and why); then Live on SMS", async () => {
    await label('Step 1: wait').fill('soon');
    await page.getByRole('button', { name: 'Save campaign' }).click();
    await settingsError().filter({ hasText: /\S/ }).waitFor();
    expect(await settingsError().textContent()).toMatch(/^Step 1: wait must be a duration/);
    await label('Step 1: wait').fill('2h');

    await label('Channel').selectOption('sms');
    await label('List').selectOption('');
    await page.getByRole('radio', { name: 'Live' }).check();
    await page.getByRole('button', { name: 'Save campaign' }).click();
    await settingsError().filter({ hasText: 'to go Live' }).waitFor();
    expect(await settingsError().textContent()).toBe('List is required to go Live');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'campaign-cannot-send');
    expect((await v1('GET', `campaigns/${campaignId}`)).body).toEqual(
      expect.objectContaining({ status: 'draft', channel: 'whatsapp', listId: list.id }),
    );

    await label('List').selectOption(list.id);
    await page.getByRole('button', { name: 'Save campaign' }).click();
    await status('Campaign saved.').waitFor();
    expect(await settingsError().textContent()).toBe('');
    expect((await v1('GET', `campaigns/${campaignId}`)).body).toEqual(
      expect.objectContaining({ status: 'live', channel: 'sms', listId: list.id }),
    );
    await page.locator('.current .badge', { hasText: 'Live' }).waitFor();
    // A custom channel asks for its label.
    await label('Channel').selectOption('custom');
    await label('Custom channel label').fill('Instagram');
    await page.getByRole('button', { name: 'Save campaign' }).click();
    await status('Campaign saved.').waitFor();
    expect((await v1('GET', `campaigns/${campaignId}`)).body).toEqual(
      expect.objectContaining({ channel: 'custom', customChannel: 'Instagram', status: 'live' }),
    );
    await label('Channel').selectOption('sms');
    await page.getByRole('button', { name: 'Save campaign' }).click();
    await status('Campaign saved.').waitFor();
  });

  test('the table, a page at a time, opens a campaign; Back returns to it', async () => {
    for (let i = 0; i < 26; i++)
      expect((await v1('POST', 'campaigns', { name: `Bulk ${String(i).padStart(2, '0')}` })).status).toBe(201);
    await page.getByRole('link', { name: '← All campaigns' }).click();
    await heading(page)
      .filter({ hasText: /^Campaigns$/ })
      .waitFor();
    const names = page.locator('main table tbody tr td:first-child');
    await names.first().waitFor();
    expect(await names.count()).toBe(25);
    expect(await names.first().textContent()).toBe(`Dental ${HOSTILE}`);
    expect(await page.locator('main table tbody tr').first().innerText()).toBe(
      `Dental ${HOSTILE}\tLive\tSMS\tSpring ${HOSTILE}\t20/m`,
    );
    expect(await page.locator('main img').count()).toBe(0);
    await screenshot(page, 'campaigns');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2').waitFor();
    expect(await names.allTextContents()).toEqual(['Bulk 24', 'Bulk 25']);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByRole('link', { name: `Dental ${HOSTILE}` }).click();
    await heading(page).filter({ hasText: 'Dental' }).waitFor();
    await page.goBack();
    await heading(page)
      .filter({ hasText: /^Campaigns$/ })
      .waitFor();
    await page.goForward();
    await heading(page).filter({ hasText: 'Dental' }).waitFor();
  });
});

describe('reaching the list', () => {
  test('going Live when no contact of the list can be reached warns before saving; the page then counts the contacts not reached, by reason', async () => {
    const listId = (await v1('POST', 'lists', { name: 'Emails only' })).body.id;
    for (const email of ['a@example.com', 'b@example.com']) {
      const contact = (await v1('POST', 'contacts', { email })).body;
      await v1('POST', `lists/${listId}/contacts`, { contactId: contact.id });
    }
    const created = (
      await v1('POST', 'campaigns', {
        name: 'Chat funnel',
        channel: 'custom',
        customChannel: 'livechat',
        listId,
        openingMessage: 'Hi!',
        triggerOnNewContacts: true,
      })
    ).body;
    await page.goto(url(`/console/campaigns?id=${created.id}`));
    await heading(page).filter({ hasText: 'Chat funnel' }).waitFor();
    expect(await page.getByRole('status', { name: 'Contacts not reached' }).count()).toBe(0);

    await page.getByRole('radio', { name: 'Live' }).check();
    await page.getByRole('button', { name: 'Save campaign' }).click();
    const warning = page.locator('form.campaign-form .warning');
    await warning.waitFor();
    expect(await warning.textContent()).toBe(
      'None of the 2 contacts checked in the list has an external ID on the custom channel “livechat”: the campaign cannot reach them. Save again to go Live anyway.',
    );
    expect((await v1('GET', `campaigns/${created.id}`)).body.status).toBe('draft');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'campaign-live-warning');
    await page.getByRole('button', { name: 'Go Live anyway' }).click();
    await status('Campaign saved.').waitFor();
    expect((await v1('GET', `campaigns/${created.id}`)).body.status).toBe('live');
    // Live without the trigger: said at once, before saving.
    const untriggered = page.getByRole('status').filter({ hasText: 'new contacts of its list get no opening message' });
    expect(await untriggered.count()).toBe(0);
    await label('Trigger on new contacts added to the list').uncheck();
    await untriggered.waitFor();
    await label('Trigger on new contacts added to the list').check();
    expect(await untriggered.count()).toBe(0);

    const late = (await v1('POST', 'contacts', { email: 'c@example.com' })).body;
    await v1('POST', `lists/${listId}/contacts`, { contactId: late.id });
    await page.reload();
    const notice = page.getByRole('status', { name: 'Contacts not reached' });
    // The contacts are named once read: here by their email, as they have no name.
    await notice.filter({ hasText: 'c@example.com' }).waitFor();
    expect(await notice.innerText()).toBe(
      '1 contact of the list was not reached:\n\n1 contact: no external ID on the custom channel “livechat” (add one to the contact, or map an ID column when importing): c@example.com.\n\nSee this contact',
    );
    expect(await seriousViolations(page)).toEqual([]);
  });
});

describe('the contacts a campaign could not reach', () => {
  test('the campaign names them, the first five by reason, and links to all of them, listed on its page; the funnel links there too', async () => {
    const listId = (await v1('POST', 'lists', { name: 'Walk-ins' })).body.id;
    const created = (
      await v1('POST', 'campaigns', {
        name: 'Walk-in follow-up',
        channel: 'sms',
        listId,
        openingMessage: 'Hi!',
        triggerOnNewContacts: true,
        status: 'live',
      })
    ).body;
    const names = ['Ann Ray', 'Bo Ray', 'Cy Fox', 'Di Orr', 'Ed Kim', 'Flo Lin', 'Gus Moe'];
    const rows = names.map((name, i) => `${name.split(' ')[0]},${name.split(' ')[1]},p${i}@example.com`);
    const imported = (
      await v1('POST', `lists/${listId}/imports`, {
        csv: ['First,Last,Email', ...rows].join('\n'),
        columns: { firstName: 'First', lastName: 'Last', email: 'Email' },
      })
    ).body;
    await poll(
      () => v1('GET', `imports/${imported.id}`),
      (r) => r.body.status === 'done',
    );
    await page.goto(url(`/console/campaigns?id=${created.id}`));
    await heading(page).filter({ hasText: 'Walk-in follow-up' }).waitFor();
    const notice = page.getByRole('status', { name: 'Contacts not reached' });
    await notice.filter({ hasText: 'Ann Ray' }).waitFor();
    expect(await notice.innerText()).toBe(
      '7 contacts of the list were not reached:\n\n7 contacts: no phone number: Ann Ray, Bo Ray, Cy Fox, Di Orr, Ed Kim and 2 others.\n\nSee the 7 contacts not reached',
    );
    await notice.getByRole('link', { name: 'See the 7 contacts not reached' }).click();
    const listed = page.locator('table.unreachable-contacts tbody tr');
    await listed.first().waitFor();
    expect((await listed.allInnerTexts()).map((row) => row.split('\t'))).toEqual(
      names.map((name, i) => [name, '—', `p${i}@example.com`, 'no phone number']),
    );
    expect(await seriousViolations(page)).toEqual([]);

    // From the funnel, the notice's link opens the campaign's page at the contacts not reached.
    await page.getByRole('navigation').getByRole('link', { name: 'Funnel' }).click();
    await page.locator('#funnel-campaign').selectOption(created.id);
    await page.getByRole('button', { name: 'Show funnel' }).click();
    await page
      .getByRole('status', { name: 'Contacts not reached' })
      .getByRole('link', { name: 'See the 7 contacts not reached' })
      .click();
    await heading(page).filter({ hasText: 'Walk-in follow-up' }).waitFor();
    expect(new URL(page.url()).searchParams.get('id')).toBe(created.id);
    await page.locator('table.unreachable-contacts tbody tr').first().waitFor();
  });
});

describe('the contacts already on the list', () => {
  test('the question says the sending window the pacing keeps to, its days included', async () => {
    const listId = (await v1('POST', 'lists', { name: 'Weekday leads' })).body.id;
    const contact = (await v1('POST', 'contacts', { phone: uniquePhone(), firstName: 'Wes' })).body;
    expect((await v1('POST', `lists/${listId}/contacts`, { contactId: contact.id })).status).toBe(201);
    const days = ['mon', 'tue', 'wed', 'thu', 'fri'];
    const sendingWindow = { start: '08:00', end: '21:00', timezone: 'America/New_York', days };
    const created = (
      await v1('POST', 'campaigns', { name: 'Weekdays', channel: 'sms', listId, openingMessage: 'Hi!', sendingWindow })
    ).body;
    await page.goto(url(`/console/campaigns?id=${created.id}`));
    await heading(page).filter({ hasText: 'Weekdays' }).waitFor();
    await page.getByRole('radio', { name: 'Live' }).check();
    await page.getByRole('button', { name: 'Save campaign' }).click();
    const question = page.getByRole('alertdialog', { name: 'Also message the 1 contact already on the list?' });
    expect(await question.locator('#reach-question-detail').textContent()).toContain(
      'they go at once, within the sending window (Mon–Fri, 08:00–21:00, America/New_York).',
    );
    await question.getByRole('button', { name: 'Cancel' }).click();
    expect((await v1('GET', `campaigns/${created.id}`)).body.status).toBe('draft');
  });

  test('going Live asks whether they get the opening message too, and how long the pacing takes; the page says what was queued and who could not be reached, why', async () => {
    const listId = (await v1('POST', 'lists', { name: 'Before the campaign' })).body.id;
    const phones = [uniquePhone(), uniquePhone(), uniquePhone(), uniquePhone()];
    for (const body of [
      ...phones.map((phone, i) => ({ phone, firstName: `Lead ${i}` })),
      { email: 'no.phone@example.com', firstName: 'Nora' },
    ]) {
      const contact = (await v1('POST', 'contacts', body)).body;
      expect((await v1('POST', `lists/${listId}/contacts`, { contactId: contact.id })).status).toBe(201);
    }
    const created = (
      await v1('POST', 'campaigns', {
        name: 'Existing leads',
        channel: 'sms',
        listId,
        openingMessage: 'Hi {{first_name}}!',
        triggerOnNewContacts: true,
        sendRate: '1/m',
      })
    ).body;
    await page.goto(url(`/console/campaigns?id=${created.id}`));
    await heading(page).filter({ hasText: 'Existing leads' }).waitFor();

    // Cancel leaves it a draft; the question comes again on the next save.
    await page.getByRole('radio', { name: 'Live' }).check();
    await page.getByRole('button', { name: 'Save campaign' }).click();
    const question = page.getByRole('alertdialog', { name: 'Also message the 5 contacts already on the list?' });
    await question.waitFor();
    expect(await question.locator('#reach-question-detail').textContent()).toBe(
      'Each of them who has not had this campaign’s opening message gets it, paced like new contacts: about 2 minutes at 1 per minute. New contacts added to the list get it either way.',
    );
    await page.waitForFunction(() => document.activeElement?.textContent === 'Go Live and message them');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'campaign-reach-question');
    await question.getByRole('button', { name: 'Cancel' }).click();
    expect((await v1('GET', `campaigns/${created.id}`)).body.status).toBe('draft');

    await page.getByRole('button', { name: 'Save campaign' }).click();
    await question.getByRole('button', { name: 'Go Live and message them' }).click();
    const report = page.getByRole('status', { name: 'Contacts already on the list' });
    await report.waitFor();
    expect(await report.innerText()).toBe(
      'Opening messages queued for 4 contacts already on the list: about 1 minute at 1 per minute.\n\n1 contact could not be reached:\n\n1 contact: no phone number',
    );
    expect((await v1('GET', `campaigns/${created.id}`)).body).toMatchObject({
      status: 'live',
      unreachable: { total: 1, byReason: { no_phone: 1 } },
    });
    // The first three go at once; the page counts them as sent.
    await poll(
      async () =>
        (await v1('GET', 'conversations', undefined)).body.data.filter(
          (c: any) => c.campaignId === created.id && c.lastMessage?.author === 'campaign',
        ).length,
      (n) => n === 3,
    );
    await page
      .locator('[data-count="opening-sent"]')
      .filter({ hasText: '3 opening messages sent so far.' })
      .waitFor({ timeout: 15_000 });
    // The contact not reached is named, with a link to the contacts not reached, listed on the page.
    const notReached = page.getByRole('status', { name: 'Contacts not reached' });
    await notReached.filter({ hasText: '1 contact: no phone number: Nora.' }).waitFor();
    await screenshot(page, 'campaign-reach-report');
    await notReached.getByRole('link', { name: 'See this contact' }).click();
    expect(new URL(page.url()).hash).toBe('#unreachable-contacts');
    const listed = page.locator('table.unreachable-contacts tbody tr');
    await listed.first().waitFor();
    expect(await listed.allInnerTexts()).toEqual(['Nora\t—\tno.phone@example.com\tno phone number']);
    // The page moved to them: their heading is on the screen.
    const shown = await page.evaluate(() => ({
      top: document.getElementById('unreachable-contacts')!.getBoundingClientRect().top,
      height: innerHeight,
      scrolled: scrollY,
    }));
    expect(shown.scrolled).toBeGreaterThan(0);
    expect(shown.top).toBeGreaterThanOrEqual(0);
    expect(shown.top).toBeLessThan(shown.height - 40);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'campaign-unreachable-contacts');

    // Asked again from the Live campaign's page: each contact gets it once.
    await page.getByRole('button', { name: 'Message contacts already on the list' }).click();
    const again = page.getByRole('alertdialog', { name: 'Message the 5 contacts already on the list?' });
    await again.getByRole('button', { name: 'Message them' }).click();
    await report
      .filter({
        hasText:
          'No opening message was queued: every contact on the list has had this campaign’s opening message already.',
      })
      .waitFor();
    expect((await v1('POST', `campaigns/${created.id}/reach-existing`)).body).toEqual({ queued: 0, unreachable: {} });
  });

  test('an agent reads a campaign as text: no input that would do nothing, and no way to go Live', async () => {
    const agent = await teamMember(gw, owner, 'agent', 'Ana Agent');
    const agentContext = await newContext(browser);
    const [name, value] = agent.cookie.split('=');
    await agentContext.addCookies([{ name: name!, value: value!, url: gw.url }]);
    const agentPage = await agentContext.newPage();
    await agentPage.goto(url(`/console/campaigns?id=${campaignId}`));
    const facts = agentPage.locator('.campaign-facts');
    await facts.waitFor();
    const settings = agentPage.getByRole('region', { name: 'Settings' });
    expect(await settings.locator('input, select, textarea').count()).toBe(0);
    expect(await agentPage.getByRole('button', { name: /Save campaign|Go Live|Message contacts/ }).count()).toBe(0);
    const held = (await v1('GET', `campaigns/${campaignId}`)).body;
    const shown = await facts.locator('dt').allTextContents();
    expect(shown).toEqual(expect.arrayContaining(['Name', 'Status', 'Channel', 'Send rate', 'FAQs']));
    expect(await facts.locator('dd').first().textContent()).toBe(held.name);
    expect(await facts.innerText()).toContain(held.bot.faqs[0].question);
    expect(await facts.innerText()).toContain('Mon–Fri, 09:00–19:30 (America/Mexico_City)');
    expect(await scriptRan(agentPage)).toBe(false);
    await screenshot(agentPage, 'campaign-agent-facts');
    await agentContext.close();
  });
});

describe('preview and bot', () => {
  test('preview: the opening message personalized for a contact found by phone or by email, shown as text; an unknown one refused', async () => {
    const phone = uniquePhone();
    await v1('POST', 'contacts', { phone, firstName: HOSTILE, email: 'ana@example.com' });
    await page.goto(url(`/console/campaigns?id=${campaignId}`));
    await heading(page).filter({ hasText: 'Dental' }).waitFor();
    const preview = page.getByRole('region', { name: 'Opening message preview' });

    await label('Contact’s phone').fill(`+1 ${phone.slice(2, 5)} ${phone.slice(5)}`);
    await page.getByRole('button', { name: 'Preview' }).click();
    await preview.waitFor();
    expect(await preview.locator('.message').textContent()).toBe(`Hola ${HOSTILE}, ¿te llamamos?`);
    expect(await preview.locator('dd').allTextContents()).toEqual(['sms', phone]);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await scriptRan(page)).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'campaign-preview');

    await page.getByRole('radio', { name: 'Email' }).check();
    await label('Contact’s email').fill('ANA@example.com');
    await page.getByRole('button', { name: 'Preview' }).click();
    await status('Preview ready.').waitFor();
    expect(await preview.locator('.message').textContent()).toBe(`Hola ${HOSTILE}, ¿te llamamos?`);

    await label('Contact’s email').fill('nobody@example.com');
    await page.getByRole('button', { name: 'Preview' }).click();
    const error = page.locator('#preview-heading ~ .error');
    await error.filter({ hasText: /\S/ }).waitFor();
    expect(await error.textContent()).toBe('Contact not found');
    expect(await preview.count()).toBe(0);
  });

  test('try the bot: an FAQ answered, an unknown question handed off with its reason; nothing sent or stored', async () => {
    const before = (await v1('GET', 'conversations')).body.data.length;
    await label('Question').fill('what are your opening hours');
    await page.getByRole('button', { name: 'Ask the bot' }).click();
    const answer = page.getByRole('region', { name: 'The bot’s answer' });
    await answer.waitFor();
    expect(await answer.locator('.message').textContent()).toBe('Monday to Friday, 9 to 19.');
    // Why: the FAQ it answered with, and how sure it was.
    const why = answer.getByLabel('Why the bot answered so');
    expect(await why.innerText()).toMatch(
      /^Why: confidence \d+ %\s+Answered with the FAQ: What are your opening hours\? \(FAQ 1\)$/,
    );
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'campaign-bot-answer');

    await label('Question').fill(`Can I pay with bitcoin? ${HOSTILE}`);
    await page.getByRole('button', { name: 'Ask the bot' }).click();
    await answer.locator('.handoff-reason').waitFor();
    expect(await answer.locator('.handoff-reason').textContent()).toBe('no FAQ answers this with confidence');
    expect(await answer.innerText()).toContain(
      'The bot would hand the conversation to a person: no FAQ answers this with confidence.',
    );
    expect(await scriptRan(page)).toBe(false);
    await screenshot(page, 'campaign-bot-handoff');
    expect((await v1('GET', 'conversations')).body.data.length).toBe(before);
  });

  test('questions the bot could not answer: the most asked first, shown as text; one made an FAQ answers it from then on', async () => {
    for (const body of [
      `ortodoncia para adultos? ${HOSTILE}`,
      '¿Venden tarjetas de regalo?',
      '¿tienen tarjetas regalo?',
    ]) {
      await v1('POST', 'incoming_custom_channel_message', {
        customData: {
          messageSid: `sid-${body.length}-${Math.random()}`,
          fromId: `visitor-${body.length}`,
          toId: 'clinic',
          body,
          campaignId,
        },
      });
    }
    await untilIdle(gw);
    await page.goto(url(`/console/campaigns?id=${campaignId}`));
    const panel = page.getByRole('region', { name: 'Questions the bot could not answer' });
    await panel.locator('li').first().waitFor();
    const items = await panel.locator('li').allInnerTexts();
    expect(items).toHaveLength(2);
    expect(items[0]).toContain('asked 2 times');
    expect(items[0]).toContain('¿tienen tarjetas regalo?');
    expect(items[0]).toContain('Also asked as: ¿Venden tarjetas de regalo?');
    expect(items[1]).toContain(`ortodoncia para adultos? ${HOSTILE}`);
    expect(await scriptRan(page)).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'campaign-unanswered');

    await panel.locator('li').first().getByRole('button', { name: 'Add as FAQ' }).click();
    await label('FAQ question').fill('¿Venden tarjetas de regalo?');
    await label('FAQ answer').fill('Sí: tarjetas regalo desde 300 MXN, en recepción.');
    await page.getByRole('button', { name: 'Save FAQ' }).click();
    await panel.getByText('Answered now by the FAQ').waitFor();
    const faqs = (await v1('GET', `campaigns/${campaignId}`)).body.bot.faqs;
    expect(faqs.at(-1)).toEqual({
      question: '¿Venden tarjetas de regalo?',
      answer: 'Sí: tarjetas regalo desde 300 MXN, en recepción.',
    });
    const tried = await v1('POST', `campaigns/${campaignId}/bot/test`, { message: '¿tienen tarjetas regalo?' });
    expect(tried.body.reply).toMatchObject({ kind: 'reply', body: 'Sí: tarjetas regalo desde 300 MXN, en recepción.' });
  });

  test('readable at phone width: nothing wider than the screen, no serious violation', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 375, height: 740 });
    for (const [path, shot] of [
      ['/console/campaigns', 'campaigns-phone'],
      [`/console/campaigns?id=${campaignId}`, 'campaign-edit-phone'],
    ] as const) {
      await phone.goto(url(path));
      await phone.locator('main').getByRole('button').first().waitFor();
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      expect(await seriousViolations(phone)).toEqual([]);
      await screenshot(phone, shot);
    }
    await phone.close();
  });
});

describe('archiving', () => {
  test('an admin archives a campaign after a second click; it leaves the table, shows under the archived ones, read as text, and comes back paused', async () => {
    const made = (await v1('POST', 'campaigns', { name: `Old promo ${HOSTILE}`, channel: 'sms' })).body;
    await page.goto(url(`/console/campaigns?id=${made.id}`));
    await heading(page).filter({ hasText: 'Old promo' }).waitFor();
    await page.getByRole('button', { name: 'Archive campaign' }).click();
    await page.getByText('no longer keeps its list from being deleted').waitFor();
    expect((await v1('GET', `campaigns/${made.id}`)).body.status).toBe('draft');
    await page.getByRole('button', { name: 'Archive the campaign' }).click();
    await status('Campaign archived.').waitFor();
    expect((await v1('GET', `campaigns/${made.id}`)).body.status).toBe('archived');
    await page.locator('.campaign-facts').waitFor();
    expect(await page.locator('form.campaign-form').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await scriptRan(page)).toBe(false);
    await screenshot(page, 'campaign-archived');
    await label('Question').fill('Are you open on Sunday?');
    await page.getByRole('button', { name: 'Ask the bot' }).click();
    await page.getByText('Nothing would be sent: the campaign is archived.').waitFor();

    await page.getByRole('link', { name: '← All campaigns' }).click();
    await heading(page)
      .filter({ hasText: /^Campaigns$/ })
      .waitFor();
    await page.locator('main table tbody tr').first().waitFor();
    expect(await page.getByRole('link', { name: `Old promo ${HOSTILE}` }).count()).toBe(0);
    await page.getByRole('button', { name: 'Show archived campaigns' }).click();
    await page.getByRole('heading', { name: 'Archived campaigns' }).waitFor();
    await page.getByRole('link', { name: `Old promo ${HOSTILE}` }).waitFor();
    expect(await page.locator('main table tbody tr').allInnerTexts()).toEqual([
      `Old promo ${HOSTILE}\tArchived\tSMS\t—\t30/m`,
    ]);
    await screenshot(page, 'campaigns-archived');

    await page.getByRole('link', { name: `Old promo ${HOSTILE}` }).click();
    await page.getByRole('button', { name: 'Bring back' }).click();
    await status('Brought back, paused.').waitFor();
    await page.locator('form.campaign-form').waitFor();
    expect((await v1('GET', `campaigns/${made.id}`)).body.status).toBe('paused');
    expect(await page.getByRole('radio', { name: 'Archived' }).count()).toBe(0);
  });

  test('an agent sees the archived campaigns but can neither archive one nor bring one back', async () => {
    const done = (await v1('POST', 'campaigns', { name: 'Done for agents', channel: 'sms' })).body;
    expect((await v1('PATCH', `campaigns/${done.id}`, { status: 'archived' })).status).toBe(200);
    const agent = await teamMember(gw, owner, 'agent', 'Archie Agent');
    const agentContext = await newContext(browser);
    const [name, value] = agent.cookie.split('=');
    await agentContext.addCookies([{ name: name!, value: value!, url: gw.url }]);
    const agentPage = await agentContext.newPage();
    await agentPage.goto(url('/console/campaigns'));
    await agentPage.getByRole('button', { name: 'Show archived campaigns' }).click();
    await agentPage.getByRole('link', { name: 'Done for agents' }).click();
    await agentPage.locator('.campaign-facts').waitFor();
    expect(await agentPage.getByRole('button', { name: /Archive|Bring back/ }).count()).toBe(0);
    await agentPage.goto(url(`/console/campaigns?id=${campaignId}`));
    await agentPage.locator('.campaign-facts').waitFor();
    expect(await agentPage.getByRole('button', { name: /Archive|Bring back/ }).count()).toBe(0);
    await agentContext.close();
  });
});
