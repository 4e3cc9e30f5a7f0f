import https from 'node:https';
import path from 'node:path';
import {
  api,
  createAccount,
  expectApiError,
  getBytes,
  poll,
  request,
  uniquePhone,
  useGateway,
  type TestAccount,
} from './api-support';
import { trusting } from '../helpers/gateway';
import { gatewayModule } from '../helpers/gateway-modules';

/**
 * GET /v1/lists/{id}/export: a list's contacts as a CSV file that a spreadsheet opens safely and that imports back
 * into another list as the same contacts.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '200ms', LEADCHAT_LOG_LEVEL: 'info' });

const newList = async (account: TestAccount, name = 'Leads') => {
  const res = await api(ctx.gw, account, 'POST', 'lists', { body: { name } });
  expect(res.status).toBe(201);
  return res.body;
};

async function addContact(account: TestAccount, listId: string, body: Record<string, unknown>): Promise<any> {
  const made = await api(ctx.gw, account, 'POST', 'contacts', { body });
  expect(made.status).toBe(201);
  const added = await api(ctx.gw, account, 'POST', `lists/${listId}/contacts`, { body: { contactId: made.body.id } });
  expect(added.status).toBe(201);
  return made.body;
}

/** The export as it arrives: status, headers and the text with its BOM. */
/** `count` new contacts, each with a phone, imported into the list; resolves once the import is done. */
async function imported(account: TestAccount, listId: string, count: number): Promise<void> {
  const contacts = Array.from({ length: count }, () => ({ phone: uniquePhone() }));
  const started = await api(ctx.gw, account, 'POST', `lists/${listId}/imports`, { body: { contacts } });
  expect(started.status).toBe(202);
  await poll(
    () => api(ctx.gw, account, 'GET', `imports/${started.body.id}`),
    (r) => r.body.status === 'done',
    60_000,
  );
}

async function exported(account: TestAccount, listId: string) {
  const res = await getBytes(ctx.gw, account, `/v1/lists/${listId}/export`);
  return { status: res.status, headers: res.headers, text: res.bytes.toString('utf8') };
}

/** The file's records, as the import's own parser reads them (quoted fields, line breaks in them, CRLF). */
async function records(text: string): Promise<string[][]> {
  const { parse } = await import('csv-parse/sync');
  return parse(text, { bom: true }) as string[][];
}

async function members(account: TestAccount, listId: string): Promise<any[]> {
  const page = await api(ctx.gw, account, 'GET', `lists/${listId}/contacts`, { query: { limit: '100' } });
  expect(page.status).toBe(200);
  return page.body.data;
}

/** What a contact is, as the round trip must keep it (its id, dates and consent are another account's). */
const fieldsOf = (c: any) => ({
  phone: c.phone,
  firstName: c.firstName,
  lastName: c.lastName,
  email: c.email,
  customFields: c.customFields ?? {},
  externalIds: c.externalIds ?? {},
});

test("an exported list imports into another account's list, columns named as the file names them, as the same contacts: a comma, a quote, a line break, non-ASCII, formulas and apostrophes included", async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const given = [
    {
      phone: uniquePhone(),
      firstName: 'Zoë, "Zo"',
      lastName: 'Ñúñez',
      email: 'zoe@example.com',
      customFields: { notes: 'first line\nsecond, "quoted"', city: 'Zürich', zip: '02134', score: 42 },
    },
    {
      phone: uniquePhone(),
      firstName: '=HYPERLINK("https://evil.example","click")',
      lastName: '-2+3',
      customFields: { notes: '@SUM(A1)', city: "'t Hart", zip: "'02134", phone: '+1 555' },
    },
    { email: 'only-email@example.com', firstName: "'=kept", externalIds: { livechat: 'visitor-42' } },
  ];
  for (const body of given) await addContact(account, list.id, body);

  const file = await exported(account, list.id);
  expect(file.status).toBe(200);
  expect(file.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(file.text.startsWith('\ufeff')).toBe(true);
  const [header, ...rows] = await records(file.text);
  expect(header).toEqual([
    'Phone',
    'First name',
    'Last name',
    'Email',
    'External ID (livechat)',
    'city',
    'notes',
    'phone (custom field)',
    'score',
    'zip',
    'Contact ID',
    'Added to list',
    'Opted out',
  ]);
  expect(rows).toHaveLength(3);

  const other = await createAccount(ctx.gw);
  const target = await newList(other, 'Copy');
  const customFields = Object.fromEntries(
    ['city', 'notes', 'score', 'zip'].map((name) => [name, name]).concat([['phone', 'phone (custom field)']]),
  );
  const started = await api(ctx.gw, other, 'POST', `lists/${target.id}/imports`, {
    body: {
      csv: file.text,
      columns: {
        phone: 'Phone',
        firstName: 'First name',
        lastName: 'Last name',
        email: 'Email',
        externalIds: { livechat: 'External ID (livechat)' },
        customFields,
      },
    },
  });
  expect(started.status).toBe(202);
  const done = await poll(
    () => api(ctx.gw, other, 'GET', `imports/${started.body.id}`),
    (r) => r.body.status === 'done',
    30_000,
  );
  expect({ added: done.body.added, rejected: done.body.rejected, warnings: done.body.warnings }).toEqual({
    added: 3,
    rejected: 0,
    warnings: 0,
  });
  const sort = (cs: any[]) => cs.map(fieldsOf).sort((a, b) => (a.email + a.phone).localeCompare(b.email + b.phone));
  const expected = given.map((g: any) => ({
    phone: g.phone ?? '',
    firstName: g.firstName ?? '',
    lastName: g.lastName ?? '',
    email: g.email ?? '',
    // A CSV cell is text: a number comes back as its digits.
    customFields: Object.fromEntries(Object.entries(g.customFields ?? {}).map(([k, v]) => [k, String(v)])),
    externalIds: g.externalIds ?? {},
  }));
  expect(sort(await members(other, target.id))).toEqual(sort(expected));
});

test('a custom field named as another column, and one named as its renamed header, each get a column of their own, and the file imports back', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const fields = { phone: 'home', 'phone (custom field)': 'work', 'Contact ID': 'crm-7' };
  await addContact(account, list.id, { phone: uniquePhone(), customFields: fields });
  const file = await exported(account, list.id);
  const [header, row] = await records(file.text);
  const renamed = ['Contact ID (custom field)', 'phone (custom field 2)', 'phone (custom field)'];
  expect(header!.slice(4, 7)).toEqual(renamed);
  expect(row!.slice(4, 7)).toEqual(['crm-7', 'home', 'work']);

  const other = await createAccount(ctx.gw);
  const target = await newList(other, 'Copy');
  const customFields = { 'Contact ID': renamed[0], phone: renamed[1], 'phone (custom field)': renamed[2] };
  const started = await api(ctx.gw, other, 'POST', `lists/${target.id}/imports`, {
    body: { csv: file.text, columns: { phone: 'Phone', customFields } },
  });
  expect(started.status).toBe(202);
  const done = await poll(
    () => api(ctx.gw, other, 'GET', `imports/${started.body.id}`),
    (r) => r.body.status === 'done',
    30_000,
  );
  expect({ added: done.body.added, rejected: done.body.rejected }).toEqual({ added: 1, rejected: 0 });
  const [copied] = await members(other, target.id);
  expect(copied.customFields).toEqual(fields);
});

test('a cell a spreadsheet would run gets an apostrophe; an E.164 phone is written as it is', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const phone = uniquePhone();
  const contact = await addContact(account, list.id, {
    phone,
    firstName: '=cmd|"/c calc"!A1',
    lastName: '+1+2',
    customFields: { a: '-1', b: '@x', c: '\tx=1', d: 'plain', e: "'t Hart" },
  });
  const [, row] = await records((await exported(account, list.id)).text);
  expect(row).toEqual([
    phone,
    `'=cmd|"/c calc"!A1`,
    "'+1+2",
    '',
    "'-1",
    "'@x",
    "'\tx=1",
    'plain',
    "'t Hart",
    contact.id,
    expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    'no',
  ]);
});

test("the file is named after the list: quotes and slashes made safe, a name not in ASCII in RFC 6266's filename*", async () => {
  const account = await createAccount(ctx.gw);
  const plain = await newList(account, 'Spring leads');
  expect((await exported(account, plain.id)).headers['content-disposition']).toBe(
    'attachment; filename="Spring leads.csv"',
  );
  const odd = await newList(account, 'Leads "VIP" / Zürich');
  expect((await exported(account, odd.id)).headers['content-disposition']).toBe(
    `attachment; filename="Leads _VIP_ _ Z_rich.csv"; filename*=UTF-8''Leads%20_VIP_%20_%20Z%C3%BCrich.csv`,
  );
});

test('an empty list is the header row alone; an unknown list is 404 LIST_NOT_FOUND', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const file = await exported(account, list.id);
  expect(file.text).toBe('\ufeffPhone,First name,Last name,Email,Contact ID,Added to list,Opted out\r\n');
  expectApiError(await api(ctx.gw, account, 'GET', 'lists/lst_missing/export'), 404, 'LIST_NOT_FOUND');
});

test('an erased contact is not in the file', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const kept = await addContact(account, list.id, { phone: uniquePhone() });
  const erased = await addContact(account, list.id, { phone: uniquePhone() });
  expect((await api(ctx.gw, account, 'DELETE', `contacts/${erased.id}`)).status).toBe(204);
  const [, ...rows] = await records((await exported(account, list.id)).text);
  expect(rows.map((r) => r[4])).toEqual([kept.id]);
});

test('a client that goes away mid-download stops the reading of the list', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  await imported(account, list.id, 3_000);
  const before = ctx.gw.output().length;
  // The first bytes arrive before the list is read through; the client then leaves.
  await new Promise<void>((resolve, reject) => {
    const req = https.request(
      new URL(`/v1/lists/${list.id}/export`, ctx.gw.url),
      { headers: { 'x-api-key': account.apiKey }, ...trusting(ctx.gw.ca), agent: false },
      (res) => {
        expect(res.statusCode).toBe(200);
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      },
    );
    req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
    req.end();
  });
  const logged = await poll(
    async () => ctx.gw.output().slice(before),
    (out) => out.includes('list export stopped'),
  );
  const line = JSON.parse(logged.split('\n').find((l) => l.includes('list export stopped'))!);
  // The BOM, the header and 6 pages of rows when read through: it stopped before.
  expect(line.chunks).toBeLessThan(8);
});

test("an account deleted while its list's file is read: the reading fails, so the download is cut rather than ending short as if whole", async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  await imported(account, list.id, 1_200);
  // The file as the export writes it, chunk by chunk: the BOM, the header, then a page of rows at a time.
  const { listCsv } = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/domain/list-export.js'))) as {
    listCsv: (store: unknown, list: unknown, stopped: () => boolean) => AsyncGenerator<string>;
  };
  const file = listCsv(ctx.gw.engine.store, await ctx.gw.engine.store.get('lists', list.id), () => false);
  expect((await file.next()).value).toBe('\ufeff');
  expect((await file.next()).value).toMatch(/^Phone,/);
  expect((await file.next()).value.split('\r\n').filter(Boolean)).toHaveLength(500);

  const deleted = await request(ctx.gw, 'DELETE', `/admin/v1/accounts/${account.id}`, {
    headers: { authorization: `Bearer ${ctx.gw.adminToken}` },
  });
  expect(deleted.status).toBe(202);
  await expect(file.next()).rejects.toThrow(`account ${account.id} was deleted while list ${list.id} was exported`);
});
