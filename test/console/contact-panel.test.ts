import type { Browser, BrowserContext, Page } from 'playwright-core';
import { api, incoming, uniquePhone } from '../gateway/api-support';
import type { TestGateway } from '../helpers/gateway';
import {
  downloaded,
  newContext,
  openPage,
  screenshot,
  seriousViolations,
  signInAt,
  startConsole,
  stopConsole,
} from './browser';
import { consoleAccount, teamMember, type ConsoleAccount } from './support';

/**
 * The contact panel in a real browser against a real gateway (issue 47): opened from a thread, a list and the
 * contact search; a contact corrected, the 409 naming the contact that holds the email; a likely duplicate (same
 * name) merged; everything held downloaded as JSON; the contact erased after its name is typed, and gone from the
 * list and the search; an agent given the edit form only; a 403 told in words. At phone width too, and axe-clean.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let page: Page;
/** Noah Lee who wrote on the web chat; the second Noah Lee, added with a phone and on the list; Zed. */
let noah: string;
let twin: string;
let listId: string;
let zed: string;
let ruth: string;
const twinPhone = uniquePhone();
const ruthPhone = uniquePhone();

const url = (p: string) => `${gw.url}${p}`;
const v1 = (method: string, path: string, body?: unknown) =>
  api(gw, owner, method, path, body === undefined ? {} : { body });
const panel = (p: Page, name: string) => p.getByRole('dialog', { name });
const status = (scope: ReturnType<typeof panel>, text: string) => scope.getByRole('status').filter({ hasText: text });

async function contactId(body: unknown): Promise<string> {
  const res = await v1('POST', 'contacts', body);
  expect(res.status).toBe(201);
  return res.body.id;
}

/** A second browser profile signed in as a member of the team. */
async function memberPage(cookie: string): Promise<{ context: BrowserContext; page: Page }> {
  const memberContext = await newContext(browser);
  const [name, value] = cookie.split('=');
  await memberContext.addCookies([{ name: name!, value: value!, url: gw.url }]);
  return { context: memberContext, page: await memberContext.newPage() };
}

/** Finds a contact with the inbox's search and opens its panel. */
async function detailsFromSearch(p: Page, query: string, name: string) {
  await p.goto(url('/console/inbox'));
  await p.getByLabel('Find a contact', { exact: true }).fill(query);
  await p.getByRole('button', { name: `Details of ${name}` }).click();
  const dialog = panel(p, name);
  await dialog.waitFor();
  return dialog;
}

beforeAll(async () => {
  [gw, browser] = await startConsole({ LEADCHAT_JOB_POLL: '100ms' });
  owner = await consoleAccount(gw, { name: 'Lee Clinic' });
  const wrote = await v1(
    'POST',
    'incoming_custom_channel_message',
    incoming({ fromId: 'visitor-noah', channel: 'web-chat', firstName: 'Noah', body: 'Is my x-ray ready?' }),
  );
  expect(wrote.status).toBe(200);
  noah = (await v1('GET', `messages/${wrote.body.messageId}`)).body.contactId;
  expect((await v1('PATCH', `contacts/${noah}`, { lastName: 'Lee' })).status).toBe(200);
  twin = await contactId({ firstName: 'Noah', lastName: 'Lee', phone: twinPhone });
  ruth = await contactId({ firstName: 'Ruth', lastName: 'Park', phone: ruthPhone, email: 'ruth@clinic.example' });
  await contactId({ firstName: 'Dana', lastName: 'Cole', email: 'dana@clinic.example' });
  zed = await contactId({
    firstName: 'Zed',
    lastName: 'Moss',
    email: 'zed@clinic.example',
    customFields: { plan: 'silver' },
  });
  listId = (await v1('POST', 'lists', { name: 'Patients' })).body.id;
  for (const id of [ruth, twin])
    expect((await v1('POST', `lists/${listId}/contacts`, { contactId: id })).status).toBe(201);

  ({ page } = await openPage(browser));
  await signInAt(page, url('/console/inbox'), owner);
});
afterAll(async () => {
  await stopConsole(gw, browser);
});

test('from a thread: the contact corrected; an email another contact holds is refused naming that contact, who opens in the panel', async () => {
  await page.locator('.inbox-item').filter({ hasText: 'Noah' }).click();
  await page.locator('#thread-heading').filter({ hasText: 'Noah Lee' }).waitFor();
  await page.getByRole('button', { name: 'Contact details' }).click();
  const dialog = panel(page, 'Noah Lee');
  await dialog.waitFor();
  expect(await dialog.getByLabel('First name', { exact: true }).inputValue()).toBe('Noah');
  expect(await dialog.getByLabel('Last name', { exact: true }).inputValue()).toBe('Lee');
  expect(await dialog.locator('.contact-facts').innerText()).toContain('visitor-noah');

  await dialog.getByLabel('Email', { exact: true }).fill('Ruth@Clinic.example');
  await dialog.getByRole('button', { name: 'Save contact' }).click();
  const conflict = dialog.locator('.contact-conflict');
  await conflict.waitFor();
  expect(await conflict.locator('p').textContent()).toBe(
    'Ruth Park has this email already (ruth@clinic.example): a phone or an email belongs to one contact only.',
  );
  expect(await conflict.getByRole('button', { name: 'Merge Ruth Park into this contact and save' }).count()).toBe(1);
  expect((await v1('GET', `contacts/${noah}`)).body.email).toBe('');
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'contact-panel-conflict');

  // The contact named opens in the same panel.
  await conflict.getByRole('button', { name: 'Open Ruth Park' }).click();
  const ruth = panel(page, 'Ruth Park');
  await ruth.waitFor();
  expect(await ruth.getByLabel('Phone', { exact: true }).inputValue()).toBe(ruthPhone);
  await ruth.getByRole('button', { name: 'Close' }).click();
  await ruth.waitFor({ state: 'detached' });

  await page.getByRole('button', { name: 'Contact details' }).click();
  await dialog.waitFor();
  await dialog.getByLabel('Email', { exact: true }).fill('noah@clinic.example');
  await dialog.getByRole('button', { name: 'Add a custom field' }).click();
  await dialog.getByLabel('Field 1: name', { exact: true }).fill('plan');
  await dialog.getByLabel('Field 1: value', { exact: true }).fill('gold');
  await dialog.getByRole('button', { name: 'Save contact' }).click();
  await status(dialog, 'Contact saved.').waitFor();
  expect((await v1('GET', `contacts/${noah}`)).body).toMatchObject({
    firstName: 'Noah',
    lastName: 'Lee',
    email: 'noah@clinic.example',
    customFields: { plan: 'gold' },
  });

  // A custom field removed is removed from the contact.
  await dialog.getByRole('button', { name: 'Remove field 1 (plan)' }).click();
  await dialog.getByRole('button', { name: 'Save contact' }).click();
  await page.waitForFunction(
    () =>
      document.querySelector('.contact-edit .done')?.textContent === 'Contact saved.' &&
      !document.querySelector('#custom-key-0'),
  );
  expect((await v1('GET', `contacts/${noah}`)).body.customFields ?? {}).toEqual({});
});

test('a likely duplicate (same name) is suggested and merged: its phone and list come to this contact, and it is gone', async () => {
  const dialog = panel(page, 'Noah Lee');
  const suggested = dialog.locator('.duplicates li').filter({ hasText: twinPhone });
  await suggested.waitFor();
  expect(await suggested.locator('.duplicate-why').textContent()).toBe('same name');
  await suggested.getByRole('button', { name: 'Merge Noah Lee into this contact' }).click();
  const confirm = suggested.getByRole('group', { name: 'Merge Noah Lee into this contact' });
  expect(await confirm.locator('p').textContent()).toContain('This cannot be undone.');
  await confirm.getByRole('button', { name: 'Merge', exact: true }).click();
  await status(dialog, 'Noah Lee was merged into this contact.').waitFor();
  await dialog.getByText('No other contact has the same name, email or phone digits.').waitFor();

  expect((await v1('GET', `contacts/${twin}`)).status).toBe(404);
  expect((await v1('GET', `contacts/${noah}`)).body).toMatchObject({ phone: twinPhone, email: 'noah@clinic.example' });
  expect((await v1('GET', `lists/${listId}/contacts`)).body.data.map((c: { id: string }) => c.id)).toEqual([
    ruth,
    noah,
  ]);
  await dialog.getByLabel('Phone', { exact: true }).waitFor();
  await page.waitForFunction(
    (phone) => (document.querySelector('#contact-phone') as HTMLInputElement | null)?.value === phone,
    twinPhone,
  );
});

test('export: the download is the JSON of everything held, naming the contact, its message and its list', async () => {
  const dialog = panel(page, 'Noah Lee');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    dialog.getByRole('button', { name: 'Download everything held (JSON)' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`contact-Noah-Lee-${noah}.json`);
  const held = JSON.parse(await downloaded(download));
  expect(held.contact).toMatchObject({
    id: noah,
    firstName: 'Noah',
    lastName: 'Lee',
    email: 'noah@clinic.example',
    phone: twinPhone,
  });
  expect(held.messages.map((m: { body: string }) => m.body)).toContain('Is my x-ray ready?');
  expect(held.lists.map((l: { name: string }) => l.name)).toEqual(['Patients']);
  await status(dialog, `Downloaded contact-Noah-Lee-${noah}.json.`).waitFor();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await dialog.waitFor({ state: 'detached' });
});

test('from a list at phone width: erased once the name is typed, and gone from the list, the search and the inbox', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(url(`/console/lists?id=${listId}`));
  await page.locator('table.members').getByRole('button', { name: 'Noah Lee' }).click();
  const dialog = panel(page, 'Noah Lee');
  await dialog.waitFor();
  expect(await dialog.getByRole('button', { name: 'Remove from this list' }).count()).toBe(1);
  const box = (await dialog.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  expect(await dialog.evaluate((d) => d.scrollWidth <= d.clientWidth)).toBe(true);

  const erase = dialog.getByRole('button', { name: 'Erase this contact' });
  await erase.scrollIntoViewIfNeeded();
  expect(await erase.isDisabled()).toBe(true);
  await dialog.getByLabel('Type Noah Lee to confirm', { exact: true }).fill('noah lee');
  expect(await erase.isDisabled()).toBe(true);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'contact-panel-phone');
  await dialog.getByLabel('Type Noah Lee to confirm', { exact: true }).fill('Noah Lee');
  await erase.click();
  const erased = panel(page, 'Contact erased');
  await status(erased, 'Noah Lee was erased: nothing of them is held any more.').waitFor();
  await erased.getByRole('button', { name: 'Close' }).click();
  await page.locator('table.members').getByRole('button', { name: 'Noah Lee' }).waitFor({ state: 'detached' });
  expect(await page.locator('table.members td.member-name').allTextContents()).toEqual(['Ruth Park']);

  expect((await v1('GET', `contacts/${noah}`)).status).toBe(404);
  expect((await v1('GET', `lists/${listId}/contacts`)).body.data.map((c: { id: string }) => c.id)).toEqual([ruth]);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(url('/console/inbox'));
  await page.getByLabel('Find a contact', { exact: true }).fill('Noah');
  await page.getByText('No contact matches “Noah”.').waitFor();
  expect(await page.locator('.inbox-list .inbox-item').filter({ hasText: 'Noah' }).count()).toBe(0);
});

test('an agent, from the search: edits, and is offered neither merge, export nor erasure, not even on a conflict; from the list, removes the contact from it', async () => {
  const agent = await teamMember(gw, owner, 'agent', 'Ana Agent');
  const { context: agentContext, page: agentPage } = await memberPage(agent.cookie);
  const dialog = await detailsFromSearch(agentPage, 'Ruth', 'Ruth Park');
  expect(await dialog.getByRole('heading', { level: 3 }).allTextContents()).toEqual(['Details']);
  expect(await dialog.getByRole('button', { name: /Merge|Download|Erase/ }).count()).toBe(0);

  await dialog.getByLabel('Email', { exact: true }).fill('dana@clinic.example');
  await dialog.getByRole('button', { name: 'Save contact' }).click();
  const conflict = dialog.locator('.contact-conflict');
  await conflict.waitFor();
  expect(await conflict.locator('p').textContent()).toContain('Dana Cole has this email already');
  expect(await conflict.getByRole('button').allTextContents()).toEqual(['Open Dana Cole']);

  await dialog.getByLabel('Email', { exact: true }).fill('ruth@clinic.example');
  await dialog.getByLabel('First name', { exact: true }).fill('Ruthie');
  await dialog.getByRole('button', { name: 'Save contact' }).click();
  // The panel is named after the contact, as corrected.
  const renamed = panel(agentPage, 'Ruthie Park');
  await status(renamed, 'Contact saved.').waitFor();
  expect((await v1('GET', `contacts?q=ruthie`)).body.data.map((c: { lastName: string }) => c.lastName)).toEqual([
    'Park',
  ]);
  // The search behind the panel is asked again, and finds the new name.
  await agentPage.getByRole('button', { name: 'Details of Ruthie Park' }).waitFor();
  expect(await seriousViolations(agentPage)).toEqual([]);
  await screenshot(agentPage, 'contact-panel-agent');
  await renamed.getByRole('button', { name: 'Close' }).click();

  // From the list, the agent takes the contact off it; the contact stays. The list they may rename, not delete.
  await agentPage.goto(url(`/console/lists?id=${listId}`));
  await agentPage.getByRole('heading', { name: 'Rename this list' }).waitFor();
  expect(await agentPage.getByRole('button', { name: 'Delete list' }).count()).toBe(0);
  await agentPage.locator('table.members').getByRole('button', { name: 'Ruthie Park' }).click();
  const fromList = panel(agentPage, 'Ruthie Park');
  await fromList.getByRole('button', { name: 'Remove from this list' }).click();
  await fromList
    .getByRole('group', { name: 'Remove from this list' })
    .getByRole('button', { name: 'Remove', exact: true })
    .click();
  await status(fromList, 'Ruthie Park is no longer on this list.').waitFor();
  await agentPage.getByText('No contacts yet').waitFor();
  expect((await v1('GET', `lists/${listId}/contacts`)).body.data).toEqual([]);
  expect((await v1('GET', `contacts/${ruth}`)).body.firstName).toBe('Ruthie');
  await agentContext.close();
});

test('an admin merges the contact holding the email asked for, and saves; once their role became agent, the export is refused in words', async () => {
  const admin = await teamMember(gw, owner, 'admin', 'Adam Admin');
  const { context: adminContext, page: adminPage } = await memberPage(admin.cookie);
  const dialog = await detailsFromSearch(adminPage, 'Dana', 'Dana Cole');
  await dialog.getByLabel('Email', { exact: true }).fill('zed@clinic.example');
  await dialog.getByRole('button', { name: 'Save contact' }).click();
  await dialog.getByRole('button', { name: 'Merge Zed Moss into this contact and save' }).click();
  await status(dialog, 'Contact saved.').waitFor();
  expect((await v1('GET', `contacts/${zed}`)).status).toBe(404);
  const dana = (await v1('GET', 'contacts?q=dana')).body.data;
  expect(dana).toEqual([
    expect.objectContaining({ firstName: 'Dana', email: 'zed@clinic.example', customFields: { plan: 'silver' } }),
  ]);
  await adminPage.waitForFunction(
    () => (document.querySelector('#custom-value-0') as HTMLInputElement | null)?.value === 'silver',
  );

  expect((await v1('PATCH', `members/${admin.id}`, { role: 'agent' })).status).toBe(200);
  await dialog.getByRole('button', { name: 'Download everything held (JSON)' }).click();
  await dialog
    .getByRole('alert')
    .filter({ hasText: 'Only the owner and admins may export a contact: your role does not allow it.' })
    .waitFor();
  await adminContext.close();
});
