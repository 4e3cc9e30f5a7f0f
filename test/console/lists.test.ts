import type { Browser, BrowserContext, Page } from 'playwright-core';
import { api, uniquePhone } from '../gateway/api-support';
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
  untilTitled,
} from './browser';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * The Lists page in a real browser against a real gateway: lists created, a list's contacts a page at a time, a
 * contact added by hand (the API's refusal shown next to the form, a name holding markup shown as text), and CSV
 * import with its column mapping, progress bar, counts and rejected rows; then the issue's proof: 5,000 rows with
 * 100 bad and 200 duplicates import with exactly those reported, and a Live SMS campaign on the list sends 3
 * opening messages at once and paces the rest at its rate.
 */
jest.setTimeout(120_000);

const RATE = '600/m';
const INTERVAL_MS = 100;

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let context: BrowserContext;
let page: Page;
const requests: string[] = [];

beforeAll(async () => {
  [gw, browser] = await startConsole({ LEADCHAT_JOB_POLL: '200ms' });
  owner = await consoleAccount(gw, { name: 'Lists Owner' });
  ({ context, page } = await openPage(browser, requests));
  await signInAt(page, url('/console/lists'), owner);
});
afterAll(async () => {
  await stopConsole(gw, browser);
});

const url = (p: string) => `${gw.url}${p}`;
const heading = (p: Page) => p.getByRole('heading', { level: 1 });
const v1 = (method: string, path: string, body?: unknown) =>
  api(gw, owner, method, path, body === undefined ? {} : { body });
const status = (text: string) => page.getByRole('status').filter({ hasText: text });

/** Creates a list through the page's form and leaves the page on it; answers its id. */
async function createList(name: string): Promise<string> {
  await page.goto(url('/console/lists'));
  await page.getByLabel('List name', { exact: true }).fill(name);
  await page.getByRole('button', { name: 'Create list' }).click();
  await heading(page).filter({ hasText: name }).waitFor();
  const id = new URL(page.url()).searchParams.get('id')!;
  expect(id).toMatch(/^lst_/);
  return id;
}

async function addByHand(fields: {
  first?: string;
  last?: string;
  phone?: string;
  email?: string;
  externalId?: string;
  label?: string;
}): Promise<void> {
  await page.locator('#add-first-name').fill(fields.first ?? '');
  await page.locator('#add-last-name').fill(fields.last ?? '');
  await page.locator('#add-phone').fill(fields.phone ?? '');
  await page.locator('#add-email').fill(fields.email ?? '');
  await page.getByLabel('External ID', { exact: true }).fill(fields.externalId ?? '');
  await page.getByLabel('Custom channel label', { exact: true }).fill(fields.label ?? '');
  await page.getByRole('button', { name: 'Add to the list' }).click();
}

/** Every member of a list through the API, walking its pages. */
async function membersOf(listId: string): Promise<any[]> {
  const all: any[] = [];
  for (let cursor: string | null = null; ; ) {
    const res = await v1('GET', `lists/${listId}/contacts?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    all.push(...res.body.data);
    if (!(cursor = res.body.nextCursor)) return all;
  }
}

/** A CSV cell: quoted, its quotes doubled, when it holds a quote or a separator. */
const cell = (v: string) => (/[",;\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** Chooses a file in the import panel, as a user picks one from disk. */
const chooseFile = (name: string, text: string) =>
  page
    .getByLabel('CSV file', { exact: true })
    .setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(text, 'utf8') });

/** The separator the import panel guessed, and the file's columns it offers to map (after "Not in the file"). */
async function expectOffered(separator: string, columns: string[]): Promise<void> {
  expect(await page.getByLabel('Columns are separated by', { exact: true }).inputValue()).toBe(separator);
  expect(await page.locator('#map-phone option').allTextContents()).toEqual(['Not in the file', ...columns]);
}

describe('lists', () => {
  test('reached from the navigation; a list is created, opened, and found again in the table; axe and screenshots', async () => {
    await page.goto(url('/console/settings/account'));
    await heading(page).waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'Lists' }).click();
    await page.waitForURL(url('/console/lists'));
    await heading(page).filter({ hasText: 'Lists' }).waitFor();
    await untilTitled(page, 'Lists');

    await page.getByRole('button', { name: 'Create list' }).click();
    // An empty name: the browser asks for it, nothing reaches the API.
    expect((await v1('GET', 'lists')).body.data).toEqual([]);

    const id = await createList(`Spring leads ${HOSTILE}`);
    expect((await v1('GET', 'lists')).body.data).toEqual([
      expect.objectContaining({ id, name: `Spring leads ${HOSTILE}` }),
    ]);
    expect(await page.getByText('No contacts yet').count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'list-empty');

    await page.getByRole('link', { name: '← All lists' }).click();
    await heading(page).filter({ hasText: 'Lists' }).waitFor();
    const link = page.getByRole('link', { name: `Spring leads ${HOSTILE}` });
    await link.waitFor();
    expect(await page.locator('main img').count()).toBe(0);
    await screenshot(page, 'lists');
    await link.click();
    await heading(page).filter({ hasText: 'Spring leads' }).waitFor();
    expect(new URL(page.url()).searchParams.get('id')).toBe(id);
    // Back leaves the list for the table, as the address says.
    await page.goBack();
    await heading(page)
      .filter({ hasText: /^Lists$/ })
      .waitFor();
  });

  test("a contact added by hand joins the list; a bad phone is refused with the API's reason; a name holding markup is text", async () => {
    const id = await createList('By hand');
    await addByHand({ first: 'Ann', last: 'Smith', phone: '+1 (415) 555-0123' });
    await status('Ann Smith was added to the list.').waitFor();
    await page.locator('table.members td', { hasText: '+14155550123' }).waitFor();

    await addByHand({ first: 'Ann', phone: '+14155550123' });
    await status('is in the list already.').waitFor();

    await addByHand({ first: 'Bad', phone: '12' });
    const error = page.locator('#add-contact-heading ~ .error');
    await error.filter({ hasText: /\S/ }).waitFor();
    expect(await error.textContent()).toBe(
      'Phone: "12" is not a phone number with a country code, such as +14155550123',
    );
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'list-add-refused');

    await addByHand({ first: HOSTILE, email: 'xss@example.com' });
    await status('was added to the list.').waitFor();
    const names = page.locator('table.members td.member-name');
    await names.filter({ hasText: HOSTILE }).waitFor();
    expect(await names.allTextContents()).toEqual(['Ann Smith', HOSTILE]);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await scriptRan(page)).toBe(false);
    await page.reload();
    await names.filter({ hasText: HOSTILE }).waitFor();
    expect(await page.locator('main img').count()).toBe(0);
    expect(await scriptRan(page)).toBe(false);

    const held = await membersOf(id);
    expect(held.map((m) => [m.firstName, m.phone, m.email])).toEqual([
      ['Ann', '+14155550123', ''],
      [HOSTILE, '', 'xss@example.com'],
    ]);
  });

  test('a list renamed on its page; its deletion asks twice, is refused while a campaign is linked to it, saying which, then goes', async () => {
    await v1('POST', 'lists', { name: 'Kept leads' });
    const id = await createList('Sprnig leads');
    const contact = (await v1('POST', 'contacts', { phone: uniquePhone(), firstName: 'Stays' })).body;
    await v1('POST', `lists/${id}/contacts`, { contactId: contact.id });
    await page.getByLabel('New name', { exact: true }).fill('Spring leads');
    await page.getByRole('button', { name: 'Rename', exact: true }).click();
    await status('List renamed.').waitFor();
    await heading(page).filter({ hasText: 'Spring leads' }).waitFor();
    expect((await v1('GET', `lists/${id}`)).body.name).toBe('Spring leads');

    const campaign = (await v1('POST', 'campaigns', { name: 'Spring recall', listId: id })).body;
    await page.getByRole('button', { name: 'Delete list' }).click();
    await page.getByText('its contacts and their conversations stay').waitFor();
    await page.getByRole('button', { name: 'Delete the list' }).click();
    const refused = page.locator('#list-settings-heading ~ .error').filter({ hasText: /\S/ });
    await refused.waitFor();
    expect(await refused.textContent()).toContain(`"Spring recall" (${campaign.id})`);
    expect((await v1('GET', `lists/${id}`)).status).toBe(200);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'list-delete-refused');

    await v1('PATCH', `campaigns/${campaign.id}`, { listId: null });
    await page.getByRole('button', { name: 'Delete list' }).click();
    await page.getByRole('button', { name: 'Delete the list' }).click();
    await heading(page)
      .filter({ hasText: /^Lists$/ })
      .waitFor();
    await page.getByRole('link', { name: 'Kept leads', exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'Spring leads', exact: true }).count()).toBe(0);
    expect((await v1('GET', `lists/${id}`)).status).toBe(404);
    expect((await v1('GET', `contacts/${contact.id}`)).status).toBe(200);
  });

  test('members a page at a time: Next and Previous walk the list in the order contacts joined', async () => {
    const id = await createList('Paged');
    for (let i = 0; i < 30; i++) {
      const contact = (
        await v1('POST', 'contacts', { phone: uniquePhone(), firstName: `Member ${String(i).padStart(2, '0')}` })
      ).body;
      expect((await v1('POST', `lists/${id}/contacts`, { contactId: contact.id })).status).toBe(201);
    }
    await page.reload();
    const names = page.locator('table.members td.member-name');
    await names.first().waitFor();
    expect(await names.count()).toBe(25);
    expect(await names.first().textContent()).toBe('Member 00');
    expect(await page.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2').waitFor();
    expect(await names.allTextContents()).toEqual(['Member 25', 'Member 26', 'Member 27', 'Member 28', 'Member 29']);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText('Page 1').waitFor();
    expect(await names.first().textContent()).toBe('Member 00');
  });

  test('CSV import: columns offered from the header, a semicolon file, custom fields named by the user, rejected rows with their reasons', async () => {
    const id = await createList('Small import');
    const [a, b] = [uniquePhone(), uniquePhone()];
    const csv = `\ufeffTel;Given name;Surname;Town;Notes\r\n"${a}";Ann;Lee;Lyon;"likes ""tea"""\r\nnot-a-phone;Bo;Li;Paris;\r\n${b};${cell(HOSTILE)};Cy;Nice;x\r\n${a};Ann again;;;\r\n`;
    await chooseFile('town.csv', csv);
    await expectOffered(';', ['Tel', 'Given name', 'Surname', 'Town', 'Notes']);
    expect(await page.locator('#map-phone').inputValue()).toBe('Tel');
    expect(await page.locator('#map-firstName').inputValue()).toBe('Given name');
    expect(await page.locator('#map-lastName').inputValue()).toBe('Surname');
    expect(await page.locator('#map-email').inputValue()).toBe('');
    expect(await page.getByLabel('Custom field for the column “Town”', { exact: true }).inputValue()).toBe('town');
    await page.getByLabel('Custom field for the column “Town”', { exact: true }).fill('city');
    // Notes are left out: an empty name.
    await page.getByLabel('Custom field for the column “Notes”', { exact: true }).fill('');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'list-import-mapping');
    await page.getByRole('button', { name: 'Import', exact: true }).click();

    const report = page.getByRole('region', { name: 'Import report' }).first();
    await report.waitFor({ timeout: 30_000 });
    const count = async (name: string) => await report.locator(`[data-count="${name}"]`).textContent();
    expect([
      await count('added'),
      await count('alreadyInList'),
      await count('duplicates'),
      await count('rejected'),
    ]).toEqual(['2', '0', '1', '1']);
    expect(await report.locator('table.rejected tbody tr').allInnerTexts()).toEqual([
      '3\tINVALID_PHONE\tphone: "not-a-phone" is not a phone number with a country code, such as +14155550123',
    ]);
    expect(await page.getByText('Import finished: 4 of 4 rows processed.').count()).toBe(1);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await scriptRan(page)).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'list-import-report');

    const held = await membersOf(id);
    expect(held.map((m) => [m.phone, m.firstName, m.lastName, m.customFields])).toEqual([
      [a, 'Ann', 'Lee', { city: 'Lyon' }],
      [b, HOSTILE, 'Cy', { city: 'Nice' }],
    ]);
    // The members table was read again after the import.
    await page.locator('table.members td.member-name', { hasText: HOSTILE }).waitFor();

    // Past imports: the same counts, and the report again on demand.
    const past = page.locator('table.imports tbody tr');
    await past.first().waitFor();
    expect(await past.count()).toBe(1);
    expect((await past.first().innerText()).split('\t').slice(1, 7)).toEqual(['Done', '4', '2', '0', '1', '1']);
    await past.first().getByRole('button', { name: 'Show report' }).click();
    await page.locator('#past-import-report table.rejected').waitFor();
    expect(await page.locator('#past-import-report table.rejected tbody tr').count()).toBe(1);
  });

  test('the import report lists by row the rows rejected, the rows kept without what could not be read (or with the name of another contact), and each duplicate with the contact it was merged into', async () => {
    const id = await createList('Clinic patients');
    const [ann, noahPhone] = [uniquePhone(), uniquePhone()];
    const noah = (await v1('POST', 'contacts', { phone: noahPhone, firstName: 'Noah', lastName: 'Lee' })).body;
    const csv = [
      'Name,Last,Phone,Email', // 1
      `Ann,Ray,${ann},ann@`, // 2: kept without the email
      'Bo,Ray,(415) 555-0109 ext. 2,bo@example.com', // 3: kept without the phone
      'Cy,Fox,555-0110,cy@example.com', // 4: kept without the phone
      'Di,Orr,not-a-phone,di@', // 5: rejected
      `Mia,Lee,${noahPhone},`, // 6: Noah's phone
      `Ann again,,${ann},`, // 7: row 2 again
    ].join('\n');
    await chooseFile('patients.csv', csv);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const report = page.getByRole('region', { name: 'Import report' }).first();
    await report.waitFor({ timeout: 30_000 });
    const count = async (name: string) => await report.locator(`[data-count="${name}"]`).textContent();
    expect({
      added: await count('added'),
      duplicates: await count('duplicates'),
      warnings: await count('warnings'),
      rejected: await count('rejected'),
    }).toEqual({ added: '4', duplicates: '1', warnings: '4', rejected: '1' });
    expect(await report.locator('table.rejected tbody tr').allInnerTexts()).toEqual([
      '5\tINVALID_PHONE\tphone: "not-a-phone" is not a phone number with a country code, such as +14155550123; email: "di@" is not an email address',
    ]);
    // The contacts' names are read once the report is drawn.
    await report.locator('table.repeated td', { hasText: 'Ann Ray' }).waitFor();
    await report.locator('table.warned td', { hasText: /^Noah Lee$/ }).waitFor();
    const warned = (await report.locator('table.warned tbody tr').allInnerTexts()).map((row) =>
      row.split('\t').slice(0, 3),
    );
    expect(warned).toEqual([
      ['2', 'Email “ann@”', 'Ann Ray'],
      ['3', 'Phone “(415) 555-0109 ext. 2”', 'Bo Ray'],
      ['4', 'Phone “555-0110”', 'Cy Fox'],
      ['6', 'Name “Mia Lee”', 'Noah Lee'],
    ]);
    expect(await report.locator('table.warned tbody tr').nth(3).innerText()).toMatch(
      /one phone \(or email, or external ID\) is one contact, so this row went to Noah Lee and "Mia Lee" was left out\. To add Mia Lee as a contact of their own, give them their own phone or email/,
    );
    expect(await report.locator('table.repeated tbody tr').allInnerTexts()).toEqual(['7\t2\tAnn Ray']);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'list-import-report-by-row');
    expect((await membersOf(id)).map((m) => m.id)).toContain(noah.id);

    // The same report from the past imports.
    const past = page.locator('table.imports tbody tr');
    await past.first().getByRole('button', { name: 'Show report' }).click();
    await page.locator('#past-import-report table.repeated td', { hasText: 'Ann Ray' }).waitFor();
    expect(await page.locator('#past-import-report table.warned tbody tr').count()).toBe(4);
  });

  test("a name typed beside the phone of another person's contact adds nobody, and says whose phone it is and how to add them", async () => {
    const id = await createList('Namesakes');
    const phone = uniquePhone();
    await v1('POST', 'contacts', { phone, firstName: 'Noah', lastName: 'Lee' });
    await addByHand({ first: 'Mia', last: 'Lee', phone });
    const error = page.locator('#add-contact-heading ~ .error').filter({ hasText: /\S/ });
    await error.waitFor();
    expect(await error.textContent()).toBe(
      `The phone ${phone} is Noah Lee’s: one phone (or email) is one contact, so Mia Lee would be Noah Lee and was not added. ` +
        'To add Mia Lee as a contact of their own, give their own phone number, or leave the phone empty and give their own email ' +
        '(a contact without a phone gets no SMS or WhatsApp). To add Noah Lee to the list, type Noah Lee’s name or leave the name empty.',
    );
    expect(await membersOf(id)).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    // As the page says: Mia Lee with her own email is a contact of her own; Noah's phone with no name adds Noah.
    await addByHand({ first: 'Mia', last: 'Lee', email: 'mia.lee@example.com' });
    await status('Mia Lee was added to the list.').waitFor();
    await addByHand({ phone });
    await status('Noah Lee was added to the list.').waitFor();
    expect((await membersOf(id)).map((m) => `${m.firstName} ${m.lastName}`)).toEqual(['Mia Lee', 'Noah Lee']);
  });

  test('an import the API refuses as a whole says why next to the form: a mapped column missing from the file', async () => {
    await createList('Refused import');
    await chooseFile('no-phone.csv', 'Name,City\nAnn,Lyon\n');
    expect(await page.locator('#map-phone').inputValue()).toBe('');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const error = page.locator('#import-heading ~ .error').filter({ hasText: /\S/ });
    await error.waitFor();
    expect(await error.textContent()).toBe('Phone: map phone, email or an external ID to a column of the file');
  });

  test('files as Excel saves them are read with their accents: a CSV in Windows-1252, Unicode Text in UTF-16', async () => {
    const id = await createList('Accents');
    const [a, b] = [uniquePhone(), uniquePhone()];
    // Excel for Windows' "CSV (Comma delimited)" in a European locale: Windows-1252, semicolons, 0x92 a curly quote.
    const ansi = Buffer.concat([
      Buffer.from(`Phone;First name;Last name;Company\r\n${a};Renée;O`, 'latin1'),
      Buffer.from([0x92]),
      Buffer.from('Brien;Café Noël\r\n', 'latin1'),
    ]);
    await page
      .getByLabel('CSV file', { exact: true })
      .setInputFiles({ name: 'ansi.csv', mimeType: 'text/csv', buffer: ansi });
    expect(await page.getByLabel('Characters are encoded as', { exact: true }).inputValue()).toBe('windows-1252');
    expect(await page.getByLabel('Columns are separated by', { exact: true }).inputValue()).toBe(';');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const report = page.getByRole('region', { name: 'Import report' }).first();
    await report.waitFor({ timeout: 30_000 });

    // Excel's "Unicode Text": UTF-16 little-endian with its BOM, tabs between the columns.
    const unicode = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(`Phone\tFirst name\tLast name\tCompany\r\n${b}\tJosé\tNuñez\tÅsa & Søn\r\n`, 'utf16le'),
    ]);
    await page
      .getByLabel('CSV file', { exact: true })
      .setInputFiles({ name: 'unicode.txt', mimeType: 'text/plain', buffer: unicode });
    expect(await page.getByLabel('Characters are encoded as', { exact: true }).inputValue()).toBe('utf-16le');
    expect(await page.getByLabel('Columns are separated by', { exact: true }).inputValue()).toBe('\t');
    expect(await page.locator('#map-phone').inputValue()).toBe('Phone');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByText('Import finished: 1 of 1 rows processed.').waitFor({ timeout: 30_000 });

    const held = await membersOf(id);
    expect(held.map((m) => [m.phone, m.firstName, m.lastName, m.customFields])).toEqual([
      [a, 'Renée', 'O’Brien', { company: 'Café Noël' }],
      [b, 'José', 'Nuñez', { company: 'Åsa & Søn' }],
    ]);
  });

  test('the columns guessed in exports of Google Contacts, Outlook and HubSpot, and in French, German and Italian sheets, are those holding the phone, names and email', async () => {
    const id = await createList('Exported contacts');
    const guessed = async () =>
      Promise.all(['phone', 'firstName', 'lastName', 'email'].map((f) => page.locator(`#map-${f}`).inputValue()));
    const phone = uniquePhone();
    await chooseFile(
      'google.csv',
      'First Name,Middle Name,Last Name,Phonetic First Name,Phonetic Middle Name,Phonetic Last Name,Nickname,' +
        'Organization Name,Notes,Labels,E-mail 1 - Label,E-mail 1 - Value,Phone 1 - Label,Phone 1 - Value\r\n' +
        `Ann,,Lee,,,,,,,* myContacts,* Work,ann@example.com,Mobile,${phone}\r\n`,
    );
    expect(await guessed()).toEqual(['Phone 1 - Value', 'First Name', 'Last Name', 'E-mail 1 - Value']);
    await chooseFile(
      'google-old.csv',
      'Name,Given Name,Additional Name,Family Name,Yomi Name,Given Name Yomi,E-mail 1 - Type,E-mail 1 - Value,' +
        'Phone 1 - Type,Phone 1 - Value\r\n',
    );
    expect(await guessed()).toEqual(['Phone 1 - Value', 'Given Name', 'Family Name', 'E-mail 1 - Value']);
    await chooseFile(
      'outlook.csv',
      'First Name,Middle Name,Last Name,Title,Given Yomi,Surname Yomi,E-mail Address,E-mail Type,E-mail Display Name,' +
        'Home Phone,Business Phone,Business Fax,Mobile Phone\r\n',
    );
    expect(await guessed()).toEqual(['Mobile Phone', 'First Name', 'Last Name', 'E-mail Address']);
    await chooseFile(
      'hubspot.csv',
      'Record ID,First Name,Last Name,Email,Phone Number,Mobile Phone Number,Marketing contact status\r\n',
    );
    expect(await guessed()).toEqual(['Phone Number', 'First Name', 'Last Name', 'Email']);
    // Sheets kept in a European language, as Excel saves them there: semicolons.
    await chooseFile('contacts-fr.csv', 'Civilité;Prénom;Nom;Téléphone portable;E-mail\r\n');
    expect(await guessed()).toEqual(['Téléphone portable', 'Prénom', 'Nom', 'E-mail']);
    await chooseFile('kontakte.csv', 'Anrede;Vorname;Nachname;Handy;E-Mail-Adresse\r\n');
    expect(await guessed()).toEqual(['Handy', 'Vorname', 'Nachname', 'E-Mail-Adresse']);
    await chooseFile('contatti.csv', 'Nome;Cognome;Cellulare;Email\r\n');
    expect(await guessed()).toEqual(['Cellulare', 'Nome', 'Cognome', 'Email']);

    // Google's file imports as guessed, its labels left to the custom fields the user names.
    await chooseFile(
      'google.csv',
      'First Name,Last Name,E-mail 1 - Label,E-mail 1 - Value,Phone 1 - Label,Phone 1 - Value\r\n' +
        `Ann,Lee,* Work,ann@example.com,Mobile,${phone}\r\n`,
    );
    for (const header of ['E-mail 1 - Label', 'Phone 1 - Label'])
      await page.getByLabel(`Custom field for the column “${header}”`, { exact: true }).fill('');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByText('Import finished: 1 of 1 rows processed.').waitFor({ timeout: 30_000 });
    expect((await membersOf(id)).map((m) => [m.phone, m.firstName, m.lastName, m.email, m.customFields])).toEqual([
      [phone, 'Ann', 'Lee', 'ann@example.com', undefined],
    ]);
  });

  test("Outlook's export of 92 columns imports as it is offered: the first 50 other columns as custom fields, said so", async () => {
    const id = await createList('Outlook contacts');
    const header =
      'Title,First Name,Middle Name,Last Name,Suffix,Company,Department,Job Title,Business Street,Business Street 2,' +
      'Business Street 3,Business City,Business State,Business Postal Code,Business Country/Region,Home Street,' +
      'Home Street 2,Home Street 3,Home City,Home State,Home Postal Code,Home Country/Region,Other Street,' +
      'Other Street 2,Other Street 3,Other City,Other State,Other Postal Code,Other Country/Region,' +
      "Assistant's Phone,Business Fax,Business Phone,Business Phone 2,Callback,Car Phone,Company Main Phone," +
      'Home Fax,Home Phone,Home Phone 2,ISDN,Mobile Phone,Other Fax,Other Phone,Pager,Primary Phone,Radio Phone,' +
      "TTY/TDD Phone,Telex,Account,Anniversary,Assistant's Name,Billing Information,Birthday," +
      'Business Address PO Box,Categories,Children,Directory Server,E-mail Address,E-mail Type,E-mail Display Name,' +
      'E-mail 2 Address,E-mail 2 Type,E-mail 2 Display Name,E-mail 3 Address,E-mail 3 Type,E-mail 3 Display Name,' +
      'Gender,Government ID Number,Hobby,Home Address PO Box,Initials,Internet Free Busy,Keywords,Language,' +
      "Location,Manager's Name,Mileage,Notes,Office Location,Organizational ID Number,Other Address PO Box," +
      'Priority,Private,Profession,Referred By,Sensitivity,Spouse,User 1,User 2,User 3,User 4,Web Page';
    const columns = header.split(',');
    expect(columns).toHaveLength(92);
    const phone = uniquePhone();
    const values: Record<string, string> = {
      'First Name': 'Ann',
      'Last Name': 'Lee',
      Company: 'Acme',
      'Mobile Phone': phone,
      'E-mail Address': 'ann@example.com',
      'Web Page': 'acme.example',
    };
    await chooseFile('outlook.csv', `${header}\r\n${columns.map((c) => values[c] ?? '').join(',')}\r\n`);
    expect(await page.locator('#import-custom-hint').textContent()).toMatch(
      /^The file has 88 other columns and a contact at most 50 custom fields: the first 50 are named/,
    );
    expect(await page.getByLabel('Custom field for the column “Company”', { exact: true }).inputValue()).toBe(
      'company',
    );
    expect(await page.getByLabel('Custom field for the column “Web Page”', { exact: true }).inputValue()).toBe('');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const report = page.getByRole('region', { name: 'Import report' }).first();
    await report.waitFor({ timeout: 30_000 });
    expect(await report.locator('[data-count="added"]').textContent()).toBe('1');
    expect((await membersOf(id)).map((m) => [m.phone, m.firstName, m.email, m.customFields])).toEqual([
      [phone, 'Ann', 'ann@example.com', { company: 'Acme' }],
    ]);
  });

  test('the progress of an import goes on after a reading of it fails, the connection back', async () => {
    const id = await createList('Flaky connection');
    const phone = uniquePhone();
    await chooseFile('flaky.csv', `Phone,Name\n${phone},Ann\n`);
    // The first reading of the import's progress finds no connection; the next ones go through.
    let failed = 0;
    await page.route('**/v1/imports/*', async (route) => {
      if (failed++ === 0) return route.abort('internetdisconnected');
      await route.continue();
    });
    try {
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      const report = page.getByRole('region', { name: 'Import report' }).first();
      await report.waitFor({ timeout: 30_000 });
      expect(await report.locator('[data-count="added"]').textContent()).toBe('1');
      expect(failed).toBeGreaterThan(1);
      expect(await page.locator('#import-heading ~ .error').allTextContents()).toEqual(['', '']);
    } finally {
      await page.unroute('**/v1/imports/*');
    }
    expect((await membersOf(id)).map((m) => m.phone)).toEqual([phone]);
  });

  test('an Excel workbook, another file that is no text or an empty file, chosen as the CSV, is named as such and not offered as columns', async () => {
    await createList('Workbook');
    const alert = page.locator('#import-heading ~ .error').first();
    const choose = (name: string, buffer: Buffer) =>
      page.getByLabel('CSV file', { exact: true }).setInputFiles({ name, mimeType: 'text/csv', buffer });
    // An .xlsx is a zip archive; an .xls, an OLE compound file.
    const zip = Buffer.concat([Buffer.from('PK\x03\x04\x14\x00\x06\x00', 'latin1'), Buffer.alloc(64, 0xa7)]);
    const ole = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(64)]);
    for (const [name, buffer] of [
      ['leads.xlsx', zip],
      ['leads.csv', zip],
      ['leads.xls', ole],
    ] as const) {
      await choose(name, buffer);
      await alert.filter({ hasText: /\S/ }).waitFor();
      expect(await alert.textContent()).toBe(
        `${name} is an Excel workbook, not a CSV file: open it in Excel, save it as “CSV UTF-8 (Comma delimited)” and choose that file.`,
      );
      expect(await page.getByRole('form', { name: 'Map the columns' }).count()).toBe(0);
    }
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');
    await choose('photo.csv', png);
    await alert.filter({ hasText: /is not a text file/ }).waitFor();
    expect(await alert.textContent()).toBe(
      'photo.csv is not a text file: save the contacts as CSV from your spreadsheet or CRM and choose that file.',
    );
    expect(await page.getByRole('form', { name: 'Map the columns' }).count()).toBe(0);
    // An empty file (Excel's "CSV UTF-8" of an empty sheet holds its BOM alone) has no columns to offer.
    for (const [name, buffer] of [
      ['empty.csv', Buffer.alloc(0)],
      ['blank.csv', Buffer.from('\ufeff\r\n\r\n', 'utf8')],
    ] as const) {
      await choose(name, buffer);
      await alert.filter({ hasText: name }).waitFor();
      expect(await alert.textContent()).toBe(
        `${name} is empty: save the contacts into it from your spreadsheet or CRM, with a first row naming the columns, and choose it again.`,
      );
      expect(await page.getByRole('form', { name: 'Map the columns' }).count()).toBe(0);
    }
    // A CSV chosen next is read as ever.
    await chooseFile('leads.csv', `Phone,Name\n${uniquePhone()},Ann\n`);
    expect(await alert.textContent()).toBe('');
    expect(await page.locator('#map-phone').inputValue()).toBe('Phone');
  });

  test('a file Google Sheets downloads as Tab-separated values (.tsv) can be chosen, and imports with its tabs', async () => {
    const id = await createList('Tab separated');
    // The file dialog offers only the files its accept attribute names.
    const accept = (await page.getByLabel('CSV file', { exact: true }).getAttribute('accept'))!.split(',');
    expect(accept).toEqual(expect.arrayContaining(['.csv', '.tsv', '.txt', 'text/tab-separated-values']));
    const phone = uniquePhone();
    await page.getByLabel('CSV file', { exact: true }).setInputFiles({
      name: 'Leads - Sheet1.tsv',
      mimeType: 'text/tab-separated-values',
      buffer: Buffer.from(`First name\tPhone\r\nAnn\t${phone}`),
    });
    expect(await page.getByLabel('Columns are separated by', { exact: true }).inputValue()).toBe('\t');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByText('Import finished: 1 of 1 rows processed.').waitFor({ timeout: 30_000 });
    expect((await membersOf(id)).map((m) => [m.phone, m.firstName])).toEqual([[phone, 'Ann']]);
  });

  test('a file whose first line names its separator, as Excel writes it (sep=;), is read with it, that line no column', async () => {
    const id = await createList('Separator named');
    const [a, b] = [uniquePhone(), uniquePhone()];
    await chooseFile('excel.csv', `sep=;\r\nPhone;Name;Notes\r\n${a};Ann;"called, no answer"\r\n${b};Bo;x, y\r\n`);
    await expectOffered(';', ['Phone', 'Name', 'Notes']);
    expect(await page.locator('#map-phone').inputValue()).toBe('Phone');
    expect(await page.locator('#map-firstName').inputValue()).toBe('Name');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByText('Import finished: 2 of 2 rows processed.').waitFor({ timeout: 30_000 });
    expect((await membersOf(id)).map((m) => [m.phone, m.firstName, m.customFields])).toEqual([
      [a, 'Ann', { notes: 'called, no answer' }],
      [b, 'Bo', { notes: 'x, y' }],
    ]);
    // A separator an import does not take is said, not offered as the columns.
    await chooseFile('colons.csv', `sep=:\r\nPhone:Name\r\n${a}:Ann\r\n`);
    const alert = page.locator('#import-heading ~ .error').first();
    await alert.filter({ hasText: /colons\.csv/ }).waitFor();
    expect(await alert.textContent()).toBe(
      'colons.csv names “:” as its separator on its first line: save it with commas, semicolons, tabs or pipes and choose it again.',
    );
    expect(await page.getByRole('form', { name: 'Map the columns' }).count()).toBe(0);
  });

  test('empty rows above the header, as Excel saves a sheet whose first rows were cleared, are skipped: the header after them offered as the columns', async () => {
    const id = await createList('Cleared first rows');
    const [a, b] = [uniquePhone(), uniquePhone()];
    await chooseFile('cleared.csv', `;;\r\n\r\nPhone;Name;Notes\r\n${a};Ann;x\r\n${b};Bo;y\r\n`);
    await expectOffered(';', ['Phone', 'Name', 'Notes']);
    expect(await page.locator('#map-phone').inputValue()).toBe('Phone');
    expect(await page.locator('#map-firstName').inputValue()).toBe('Name');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByText('Import finished: 2 of 2 rows processed.').waitFor({ timeout: 30_000 });
    expect((await membersOf(id)).map((m) => [m.phone, m.firstName])).toEqual([
      [a, 'Ann'],
      [b, 'Bo'],
    ]);
  });

  test('a file is held to the 20 MB of its text, as the API holds it: Unicode Text of 24 MB imports, a CSV of 20.1 MB is refused before it is sent', async () => {
    const id = await createList('Twenty megabytes');
    const alert = page.locator('#import-heading ~ .error').first();
    // Excel's "Unicode Text" takes two bytes a character: 24 MB of UTF-16 is 12 MB of text.
    const notes = 'n'.repeat(12_000);
    const rows = Array.from({ length: 1_000 }, (_, i) => `${uniquePhone()}\tLead ${i}\t${notes}`);
    const text = ['Phone\tName\tNotes', ...rows].join('\r\n');
    const unicode = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    expect(unicode.length / 2 ** 20).toBeGreaterThan(22);
    await page
      .getByLabel('CSV file', { exact: true })
      .setInputFiles({ name: 'unicode.txt', mimeType: 'text/plain', buffer: unicode }, { timeout: 60_000 });
    expect(await page.getByLabel('Characters are encoded as', { exact: true }).inputValue()).toBe('utf-16le');
    expect(await alert.textContent()).toBe('');
    await page.locator('#custom-0').fill('');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByText('Import finished: 1,000 of 1,000 rows processed.').waitFor({ timeout: 60_000 });
    expect((await membersOf(id)).length).toBe(1_000);

    // A CSV whose text is over 20 MB is said to be so, with its size, and never sent.
    const sent = requests.length;
    const over = Buffer.from(
      ['Phone,Name', ...Array.from({ length: 1_760 }, () => `${uniquePhone()},${notes}`)].join('\n'),
    );
    expect(over.length / 2 ** 20).toBeGreaterThan(20);
    await page
      .getByLabel('CSV file', { exact: true })
      .setInputFiles({ name: 'leads.csv', mimeType: 'text/csv', buffer: over }, { timeout: 60_000 });
    await alert.filter({ hasText: /\S/ }).waitFor();
    expect(await alert.textContent()).toBe(
      `leads.csv holds ${(over.length / 2 ** 20).toFixed(1)} MB of text: an import takes at most 20 MB. Split the file and import each part.`,
    );
    expect(await page.getByRole('form', { name: 'Map the columns' }).count()).toBe(0);
    expect(requests.slice(sent).filter((r) => r.includes('/imports'))).toEqual([]);
  });

  test('external IDs: a contact added by hand with its ID on a custom channel, and an import mapping an ID column to a label', async () => {
    const id = await createList('Chat visitors');
    await addByHand({ first: 'Vi', externalId: 'visitor-1' });
    const error = page.locator('#add-contact-heading ~ .error').filter({ hasText: /\S/ });
    await error.waitFor();
    expect(await error.textContent()).toMatch(/^Custom channel label: name the channel/);
    await addByHand({ first: 'Vi', externalId: 'visitor-1', label: 'livechat' });
    await status('Vi was added to the list.').waitFor();

    await chooseFile('visitors.csv', 'Name,Visitor\nWes,visitor-2\nXo,visitor-1\n');
    await page.getByLabel('External ID column', { exact: true }).selectOption('Visitor');
    await page.locator('#map-external-label').fill('livechat');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const report = page.getByRole('region', { name: 'Import report' }).first();
    await report.waitFor({ timeout: 30_000 });
    const count = async (name: string) => await report.locator(`[data-count="${name}"]`).textContent();
    expect([await count('added'), await count('alreadyInList'), await count('rejected')]).toEqual(['1', '1', '0']);

    const held = await membersOf(id);
    expect(held.map((m) => [m.firstName, m.externalIds, m.customFields])).toEqual([
      ['Vi', { livechat: 'visitor-1' }, undefined],
      ['Wes', { livechat: 'visitor-2' }, undefined],
    ]);
  });

  test('readable at phone width: the lists and a list with its members, nothing wider than the screen, no serious violation', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 375, height: 740 });
    const withMembers = ((await v1('GET', 'lists')).body.data as any[]).find((l) => l.name === 'Small import');
    for (const [path, shot] of [
      ['/console/lists', 'lists-phone'],
      [`/console/lists?id=${withMembers.id}`, 'list-phone'],
    ] as const) {
      await phone.goto(url(path));
      await phone.locator('main').getByRole('button').first().waitFor();
      await phone.locator('main table').first().waitFor();
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      expect(await seriousViolations(phone)).toEqual([]);
      await screenshot(phone, shot);
    }
    // The import report by row: its tables scroll in their own boxes, the page never sideways.
    const clinic = ((await v1('GET', 'lists')).body.data as any[]).find((l) => l.name === 'Clinic patients');
    await phone.goto(url(`/console/lists?id=${clinic.id}`));
    await phone.locator('table.imports tbody tr').first().getByRole('button', { name: 'Show report' }).click();
    await phone.locator('#past-import-report table.repeated td', { hasText: 'Ann Ray' }).waitFor();
    expect(await phone.locator('#past-import-report table.warned tbody tr').count()).toBe(4);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousViolations(phone)).toEqual([]);
    await phone.close();
  });
});

describe("the issue's proof", () => {
  /** 5,000 rows: every 50th a bad phone (100 rows), every 25th from the 13th repeating the row before (200 rows). */
  function fiveThousand(): { csv: string; bad: number[] } {
    const lines = ['Phone,First name,Last name,Email,City'];
    const bad: number[] = [];
    let previous = '';
    for (let i = 0; i < 5000; i++) {
      const row = i + 2;
      let phone = uniquePhone();
      if (i % 50 === 49) {
        phone = i % 100 === 99 ? `555-${i}` : `call me ${i}`;
        bad.push(row);
      } else if (i % 25 === 12) phone = `+1 (${previous.slice(2, 5)}) ${previous.slice(5, 8)}-${previous.slice(8)}`;
      else previous = phone;
      lines.push(`${phone},${i === 0 ? cell(HOSTILE) : `Lead ${i}`},Row ${row},,City ${i % 7}`);
    }
    return { csv: lines.join('\n'), bad };
  }

  test('5,000 rows with 100 bad and 200 duplicates import through the page with exactly those reported; a Live SMS campaign sends 3 at once and paces the rest', async () => {
    const listId = await createList('Five thousand');
    const campaign = (
      await v1('POST', 'campaigns', {
        name: 'Paced',
        channel: 'sms',
        listId,
        openingMessage: 'Hi {{first_name|there}}!',
        triggerOnNewContacts: true,
        status: 'live',
        sendRate: RATE,
      })
    ).body;
    expect(campaign.status).toBe('live');

    const { csv, bad } = fiveThousand();
    expect(bad).toHaveLength(100);
    await chooseFile('five-thousand.csv', csv);
    expect(await page.locator('#map-phone').inputValue()).toBe('Phone');
    expect(await page.locator('#map-firstName').inputValue()).toBe('First name');
    expect(await page.locator('#map-email').inputValue()).toBe('Email');
    await page.getByRole('button', { name: 'Import', exact: true }).click();

    // The progress bar moves while the job runs, then the report.
    const bar = page.locator('.import-progress progress');
    await bar.waitFor({ timeout: 20_000 });
    expect(await bar.getAttribute('max')).toBe('5000');
    const report = page.getByRole('region', { name: 'Import report' }).first();
    await report.waitFor({ timeout: 90_000 });
    expect(await bar.getAttribute('value')).toBe('5000');
    const count = async (name: string) => report.locator(`[data-count="${name}"]`).textContent();
    expect({
      added: await count('added'),
      alreadyInList: await count('alreadyInList'),
      duplicates: await count('duplicates'),
      rejected: await count('rejected'),
    }).toEqual({ added: '4,700', alreadyInList: '0', duplicates: '200', rejected: '100' });
    const rejected = await report.locator('table.rejected tbody tr').allInnerTexts();
    expect(rejected.map((r) => Number(r.split('\t')[0]))).toEqual(bad);
    expect(rejected.every((r) => r.split('\t')[1] === 'INVALID_PHONE')).toBe(true);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await scriptRan(page)).toBe(false);
    await screenshot(page, 'list-import-5000');

    const imports = (await v1('GET', `lists/${listId}/imports`)).body.data;
    expect(imports).toEqual([
      expect.objectContaining({
        status: 'done',
        total: 5000,
        processed: 5000,
        added: 4700,
        alreadyInList: 0,
        duplicates: 200,
        rejected: 100,
      }),
    ]);

    // The pacing, read from the API: the members' joining times anchor the slots, the opening messages' times
    // (each contact's conversation's last message) show when each went.
    const [first] = (await v1('GET', `lists/${listId}/contacts?limit=1`)).body.data;
    const addedAt = Date.parse(first.addedAt);
    const WATCH_MS = 8_000;
    await new Promise((r) => setTimeout(r, Math.max(0, addedAt + WATCH_MS + 500 - Date.now())));
    const sent: number[] = [];
    for (let cursor: string | null = null; ; ) {
      const res = await v1(
        'GET',
        `conversations?campaignId=${campaign.id}&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status).toBe(200);
      for (const c of res.body.data) if (c.opening?.status === 'sent') sent.push(Date.parse(c.lastMessage.createdAt));
      if (!(cursor = res.body.nextCursor)) break;
    }
    const times = sent.filter((t) => t <= addedAt + WATCH_MS).sort((x, y) => x - y);
    // 3 at once, as soon as the contacts joined.
    expect(times.slice(0, 3).map((t) => t - addedAt < 3000)).toEqual([true, true, true]);
    // The rest at the campaign's rate: the k-th send (from 0) no sooner than k - 2 intervals after the first
    // joined, since every paced send waits for its slot and the slots are an interval apart.
    const early = times
      .slice(3)
      .map((t, i) => ({ k: i + 3, aheadMs: (i + 1) * INTERVAL_MS - (t - addedAt) }))
      .filter((e) => e.aheadMs > 0);
    expect(early).toEqual([]);
    // And the queue moves: in 8 s at 600/m about 80 go, never more than the rate allows.
    expect(times.length).toBeGreaterThan(24);
    expect(times.length).toBeLessThanOrEqual(3 + WATCH_MS / INTERVAL_MS);
    // Not all at once: most of the list is still waiting for its slot.
    expect(sent.length).toBeLessThan(4700);
  });
});
