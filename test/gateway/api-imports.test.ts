import { removeDir, startGateway, type GatewayProcess } from '../helpers/gateway';
import {
  api,
  createAccount,
  expectApiError,
  poll,
  uniquePhone,
  useGateway,
  type TestAccount,
  type TestGateway,
} from './api-support';

/**
 * Bulk imports of contacts into a list (spec §3.2: "contact added by automation, manual import or by hand: all
 * count as additions to the list"): a CSV or contact objects, checked row by row as POST /contacts checks a
 * contact, applied by a durable job a chunk of 500 rows at a time, reported with counts and rejected rows.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '200ms' });

const newList = async (account: TestAccount, gw: TestGateway = ctx.gw) =>
  (await api(gw, account, 'POST', 'lists', { body: { name: 'Imported' } })).body;

const importInto = (account: TestAccount, listId: string, body: unknown, gw: TestGateway = ctx.gw) =>
  api(gw, account, 'POST', `lists/${listId}/imports`, { body });

/** Polls the import until it is done; fails the test otherwise. */
async function finished(account: TestAccount, id: string, gw: TestGateway = ctx.gw, timeoutMs = 30_000): Promise<any> {
  const res = await poll(
    () => api(gw, account, 'GET', `imports/${id}`),
    (r) => r.status !== 200 || r.body.status === 'done',
    timeoutMs,
  );
  expect({ status: res.status, importStatus: res.body.status }).toEqual({ status: 200, importStatus: 'done' });
  return res.body;
}

/** Every contact of the list, walking its pages. */
async function members(account: TestAccount, listId: string, gw: TestGateway = ctx.gw): Promise<any[]> {
  const all: any[] = [];
  for (let cursor: string | undefined; ; ) {
    const page = await api(gw, account, 'GET', `lists/${listId}/contacts`, {
      query: { limit: '200', ...(cursor ? { cursor } : {}) },
    });
    expect(page.status).toBe(200);
    all.push(...page.body.data);
    if (!page.body.nextCursor) return all;
    cursor = page.body.nextCursor;
  }
}

/** "+15551230001" as a person types it: "+1 (555) 123-0001". */
const typed = (phone: string) => `+1 (${phone.slice(2, 5)}) ${phone.slice(5, 8)}-${phone.slice(8)}`;

const byPhone = (contacts: any[]) => Object.fromEntries(contacts.map((c) => [c.phone, c]));

/** The 1,200-row file: every 100th row a bad phone, and 8 rows repeating the phone of the row before. */
function bigFile(): { csv: string; rejectedRows: number[] } {
  const lines = ['Phone,Name,Notes'];
  const rejectedRows: number[] = [];
  let previous = '';
  for (let i = 0; i < 1200; i++) {
    const row = i + 2;
    let phone = uniquePhone();
    if (i % 100 === 99) {
      phone = `not a phone ${i}`;
      rejectedRows.push(row);
    } else if (i % 150 === 75) phone = previous;
    previous = phone;
    lines.push(`${phone},Lead ${i},"${'n'.repeat(200)}"`);
  }
  return { csv: lines.join('\r\n'), rejectedRows };
}

const BIG_COLUMNS = { phone: 'Phone', firstName: 'Name' };

test('a CSV with a BOM, quoted fields, a quote mark in an unquoted one, CRLF and blank lines: 202 with the import, then every mapped field on the contacts', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const [a, b, c] = [uniquePhone(), uniquePhone(), uniquePhone()];
  const csv = `\ufeff${[
    'Phone,First name,Last,E-mail,City,Notes',
    `"${typed(a)}",Ann,"Smith, Jr",Ann.Smith@Example.COM,Lyon,"said ""hi"""`,
    '',
    `${b},"Bo",Li,,Paris,"line one\r\nline two"`,
    `${c},Cy,O"Neil,cy@example.com,,`,
  ].join('\r\n')}\r\n`;
  const columns = {
    phone: 'Phone',
    firstName: 'First name',
    lastName: 'Last',
    email: 'E-mail',
    customFields: { city: 'City' },
  };

  const res = await importInto(account, list.id, { csv, columns });
  expect(res.status).toBe(202);
  expect(res.body).toEqual({
    id: expect.stringMatching(/^imp_/),
    listId: list.id,
    status: 'queued',
    total: 3,
    processed: 0,
    added: 0,
    alreadyInList: 0,
    duplicates: 0,
    rejected: 0,
    unreachable: 0,
    errors: [],
    warnings: 0,
    rowWarnings: [],
    rowDuplicates: [],
    createdAt: expect.any(String),
    updatedAt: expect.any(String),
  });
  expect(res.headers.location).toBe(`/v1/imports/${res.body.id}`);

  const done = await finished(account, res.body.id);
  expect(done).toMatchObject({
    status: 'done',
    total: 3,
    processed: 3,
    added: 3,
    alreadyInList: 0,
    duplicates: 0,
    rejected: 0,
    errors: [],
  });
  const contacts = byPhone(await members(account, list.id));
  expect(Object.keys(contacts).sort()).toEqual([a, b, c].sort());
  expect(contacts[a]).toMatchObject({
    firstName: 'Ann',
    lastName: 'Smith, Jr',
    email: 'ann.smith@example.com',
    customFields: { city: 'Lyon' },
  });
  expect(contacts[b]).toMatchObject({ firstName: 'Bo', lastName: 'Li', email: '', customFields: { city: 'Paris' } });
  expect(contacts[c]).toMatchObject({ firstName: 'Cy', lastName: 'O"Neil', email: 'cy@example.com' });
  expect(contacts[c].customFields).toBeUndefined();
});

test('bad rows are reported with their spreadsheet row and the code POST /contacts would give; good rows are added', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const good = [uniquePhone(), uniquePhone()];
  const csv = [
    'Phone,Email,Name,Notes', // row 1
    `${good[0]},,Ann,`, // 2
    'not-a-phone,,Bad,', // 3
    '', // 4: blank, still a row of the sheet
    ',,Nameless,', // 5
    ',nobody@,Bad mail,', // 6
    `${good[1]},,Multi,"first line\nsecond line"`, // 7: one row over two lines
    `${uniquePhone()},,${'x'.repeat(201)},`, // 8
    '4155550123,,No plus,', // 9
    ',only.mail@example.com,Mail,', // 10
  ].join('\n');
  const res = await importInto(account, list.id, {
    csv,
    columns: { phone: 'Phone', email: 'Email', firstName: 'Name', customFields: { notes: 'Notes' } },
  });
  expect(res.status).toBe(202);
  expect(res.body.total).toBe(8);

  const done = await finished(account, res.body.id);
  expect(done).toMatchObject({ total: 8, processed: 8, added: 3, alreadyInList: 0, duplicates: 0, rejected: 5 });
  expect(done.errors).toEqual([
    { row: 3, code: 'INVALID_PHONE', message: expect.stringContaining('not-a-phone') },
    { row: 5, code: 'MISSING_IDENTIFIER', message: expect.any(String) },
    { row: 6, code: 'INVALID_EMAIL', message: expect.stringContaining('nobody@') },
    { row: 8, code: 'VALIDATION_ERROR', message: expect.stringMatching(/^firstName: /) },
    { row: 9, code: 'INVALID_PHONE', message: expect.stringContaining('4155550123') },
  ]);
  const contacts = await members(account, list.id);
  expect(contacts.map((c) => c.firstName).sort()).toEqual(['Ann', 'Mail', 'Multi']);
  expect(contacts.find((c) => c.firstName === 'Multi').customFields).toEqual({ notes: 'first line\nsecond line' });
});

test('a row with text past the header is rejected as WRONG_FIELD_COUNT with its row; one with fewer fields is read as its first ones; the others are added', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const phones = [uniquePhone(), uniquePhone(), uniquePhone(), uniquePhone(), uniquePhone(), uniquePhone()];
  const csv = [
    'Phone,Name,City', // row 1
    `${phones[0]},Ann,Lyon`, // 2
    `${phones[1]},Bo`, // 3: City missing, read as empty
    `${phones[2]},Cy,Paris,VIP`, // 4: one field too many
    `${phones[3]},"Smith, Jr",Nice`, // 5: the comma is quoted
    `${phones[4]},Smith, Jr,Nice`, // 6: it is not, so "Jr" sits under City and Nice under no header
    '', // 7: blank, no row to import
    `${phones[5]}`, // 8: a single field, the phone
  ].join('\n');
  const res = await importInto(account, list.id, {
    csv,
    columns: { phone: 'Phone', firstName: 'Name', customFields: { city: 'City' } },
  });
  expect(res.status).toBe(202);
  const done = await finished(account, res.body.id);
  expect(done).toMatchObject({ total: 6, processed: 6, added: 4, rejected: 2 });
  expect(done.errors).toEqual([
    { row: 4, code: 'WRONG_FIELD_COUNT', message: 'the row has 4 fields where the header has 3' },
    { row: 6, code: 'WRONG_FIELD_COUNT', message: 'the row has 4 fields where the header has 3' },
  ]);
  const contacts = byPhone(await members(account, list.id));
  expect(Object.keys(contacts).sort()).toEqual([phones[0], phones[1], phones[3], phones[5]].sort());
  expect(contacts[phones[1]!]).toMatchObject({ firstName: 'Bo' });
  expect(contacts[phones[1]!].customFields).toBeUndefined();
  expect(contacts[phones[3]!]).toMatchObject({ firstName: 'Smith, Jr', customFields: { city: 'Nice' } });
});

test('a CSV that is not UTF-8 (a Latin-1 "é") → 400 INVALID_ENCODING, nothing imported', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const phone = uniquePhone();
  const [before, after] = JSON.stringify({
    csv: `Phone,Name\n${phone},Ren<>e`,
    columns: { phone: 'Phone', firstName: 'Name' },
  }).split('<>');
  const res = await importInto(
    account,
    list.id,
    Buffer.concat([Buffer.from(before!), Buffer.from('é', 'latin1'), Buffer.from(after!)]),
  );
  expectApiError(res, 400, 'INVALID_ENCODING');
  // The file as a text/csv body is no JSON import at all.
  expectApiError(
    await api(ctx.gw, account, 'POST', `lists/${list.id}/imports`, {
      body: `Phone\n${phone}`,
      headers: { 'content-type': 'text/csv' },
    }),
    415,
  );
  expect((await api(ctx.gw, account, 'GET', `lists/${list.id}/imports`)).body).toEqual({ data: [], nextCursor: null });
  expectApiError(
    await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } }),
    404,
    'CONTACT_NOT_FOUND',
  );
});

test('repeats within the file are duplicates; an existing contact is reused as it is; one already on the list is counted', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const [inList, known, fresh] = [uniquePhone(), uniquePhone(), uniquePhone()];
  const member = (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: inList, firstName: 'Member' } }))
    .body;
  expect(
    (await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: member.id } })).status,
  ).toBe(201);
  const existing = (
    await api(ctx.gw, account, 'POST', 'contacts', {
      body: { phone: known, firstName: 'Original', email: 'orig@example.com' },
    })
  ).body;
  const mailOnly = (
    await api(ctx.gw, account, 'POST', 'contacts', { body: { email: 'mail@example.com', firstName: 'Mail' } })
  ).body;

  const csv = [
    'phone,name,email',
    `${inList},Changed,`, // 2: already on the list
    `${typed(known)},Changed,changed@example.com`, // 3: the existing contact, nothing filled over it
    `${fresh},New,`, // 4: a new contact
    `${typed(fresh)},Again,`, // 5: row 4 again, typed differently
    ',Mail again,MAIL@example.com', // 6: the existing email-only contact
    ',Mail twice,mail@example.com', // 7: row 6 again
    `${known},Third,`, // 8: row 3 again
    ',Email of row 3,Changed@example.com', // 9: found by row 3's email: row 3 again
  ].join('\n');
  const res = await importInto(account, list.id, {
    csv,
    columns: { phone: 'phone', firstName: 'name', email: 'email' },
  });
  expect(res.status).toBe(202);
  const done = await finished(account, res.body.id);
  expect(done).toMatchObject({
    total: 8,
    processed: 8,
    added: 3,
    alreadyInList: 1,
    duplicates: 4,
    rejected: 0,
    errors: [],
  });

  expect((await api(ctx.gw, account, 'GET', `contacts/${existing.id}`)).body).toEqual(existing);
  expect((await api(ctx.gw, account, 'GET', `contacts/${member.id}`)).body).toEqual(member);
  expect((await api(ctx.gw, account, 'GET', 'contacts', { query: { email: 'mail@example.com' } })).body.id).toBe(
    mailOnly.id,
  );
  const contacts = await members(account, list.id);
  expect(contacts.map((c) => c.id).sort()).toEqual(
    [member.id, existing.id, mailOnly.id, byPhone(contacts)[fresh].id].sort(),
  );
  expect(byPhone(contacts)[fresh].firstName).toBe('New');
  // Each repeat names the row it repeats and the contact both went to; each row naming someone else than its
  // contact says the name was left out.
  const freshId = byPhone(contacts)[fresh].id;
  expect(done.rowDuplicates).toEqual([
    { row: 5, of: 4, contactId: freshId },
    { row: 7, of: 6, contactId: mailOnly.id },
    { row: 8, of: 3, contactId: existing.id },
    { row: 9, of: 3, contactId: existing.id },
  ]);
  expect(done.warnings).toBe(3);
  expect(done.rowWarnings.map((w: any) => [w.row, w.field, w.code, w.value, w.contactId])).toEqual([
    [2, 'name', 'CONTACT_OF_ANOTHER_NAME', 'Changed', member.id],
    [3, 'name', 'CONTACT_OF_ANOTHER_NAME', 'Changed', existing.id],
    [6, 'name', 'CONTACT_OF_ANOTHER_NAME', 'Mail again', mailOnly.id],
  ]);
});

test('the report lists by row what was rejected, what was kept without a phone or an email, and where each repeat and namesake went', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const [ann, noahPhone, keep] = [uniquePhone(), uniquePhone(), uniquePhone()];
  const noah = (
    await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: noahPhone, firstName: 'Noah', lastName: 'Lee' } })
  ).body;
  const csv = [
    'Name,Last,Phone,Email', // 1
    `Ann,Ray,${ann},ann@`, // 2: a bad email beside a good phone: kept without the email
    'Bo,Ray,(415) 555-0109 ext. 2,bo@example.com', // 3: kept without the phone
    'Cy,Fox,555-0110,cy@example.com', // 4: kept without the phone
    'Di,Orr,not-a-phone,di@', // 5: nothing readable finds a contact: rejected for the phone
    'Ed,Kim,,ed@', // 6: rejected for the email
    `Mia,Lee,${noahPhone},`, // 7: Noah's phone: the row goes to Noah, "Mia Lee" left out
    `Ann again,,${typed(ann)},`, // 8: row 2 again
    ',,,BO@example.com', // 9: row 3 again, by its email
    `Kay,,${keep},kay@example.com`, // 10: nothing to say
  ].join('\n');
  const res = await importInto(account, list.id, {
    csv,
    columns: { firstName: 'Name', lastName: 'Last', phone: 'Phone', email: 'Email' },
  });
  expect(res.status).toBe(202);
  const done = await finished(account, res.body.id);
  expect(done).toMatchObject({
    total: 9,
    processed: 9,
    added: 5,
    alreadyInList: 0,
    duplicates: 2,
    rejected: 2,
    warnings: 4,
  });
  expect(done.errors).toEqual([
    { row: 5, code: 'INVALID_PHONE', message: expect.stringContaining('not-a-phone') },
    { row: 6, code: 'INVALID_EMAIL', message: expect.stringContaining('ed@') },
  ]);
  const added = Object.fromEntries((await members(account, list.id)).map((c) => [c.firstName, c]));
  expect(Object.keys(added).sort()).toEqual(['Ann', 'Bo', 'Cy', 'Kay', 'Noah']);
  expect(added.Ann).toMatchObject({ phone: ann, email: '' });
  expect(added.Bo).toMatchObject({ phone: '', email: 'bo@example.com' });
  expect(added.Cy).toMatchObject({ phone: '', email: 'cy@example.com' });
  expect(added.Noah).toMatchObject({ id: noah.id, firstName: 'Noah', lastName: 'Lee' });
  expect(done.rowWarnings).toEqual([
    {
      row: 2,
      field: 'email',
      code: 'INVALID_EMAIL',
      message: expect.stringMatching(/^email: /),
      value: 'ann@',
      contactId: added.Ann.id,
    },
    {
      row: 3,
      field: 'phone',
      code: 'INVALID_PHONE',
      message: expect.stringContaining('ext. 2'),
      value: '(415) 555-0109 ext. 2',
      contactId: added.Bo.id,
    },
    {
      row: 4,
      field: 'phone',
      code: 'INVALID_PHONE',
      message: expect.any(String),
      value: '555-0110',
      contactId: added.Cy.id,
    },
    {
      row: 7,
      field: 'name',
      code: 'CONTACT_OF_ANOTHER_NAME',
      message: expect.stringContaining('Noah Lee'),
      value: 'Mia Lee',
      contactId: noah.id,
    },
  ]);
  expect(done.rowWarnings[3].message).toMatch(/one phone .* is one contact/);
  expect(done.rowDuplicates).toEqual([
    { row: 8, of: 2, contactId: added.Ann.id },
    { row: 9, of: 3, contactId: added.Bo.id },
  ]);
  // The namesake changed nothing of the contact it went to.
  expect((await api(ctx.gw, account, 'GET', `contacts/${noah.id}`)).body).toEqual(noah);
});

test('contacts[] form: a row with a bad phone and a bad email is kept by its external ID, with both warnings, counted as one row', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const res = await importInto(account, list.id, {
    contacts: [
      { phone: 'x', email: 'bad@', externalIds: { livechat: `v-${account.id}` } },
      { phone: 'x', email: 'bad@' },
    ],
  });
  const done = await finished(account, res.body.id);
  expect(done).toMatchObject({ added: 1, rejected: 1, warnings: 1 });
  expect(done.rowWarnings.map((w: any) => [w.row, w.field, w.value])).toEqual([
    [1, 'phone', 'x'],
    [1, 'email', 'bad@'],
  ]);
  expect(done.errors.map((e: any) => [e.row, e.code])).toEqual([[2, 'INVALID_PHONE']]);
  // The row refused is told both of its problems, as POST /contacts is.
  expect(done.errors[0].message).toMatch(/^phone: "x" .*; email: "bad@" is not an email address$/);
  expect(done.rowWarnings.map((w: any) => w.message)).toEqual([
    expect.stringMatching(/^phone: "x" /),
    'email: "bad@" is not an email address',
  ]);
});

test('duplicates counts every repeat while rowDuplicates keeps the first 1,000, each with its contact', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const phone = uniquePhone();
  const res = await importInto(account, list.id, {
    contacts: Array.from({ length: 1005 }, (_, i) => ({ phone, firstName: `Same ${i}` })),
  });
  const done = await finished(account, res.body.id);
  expect(done).toMatchObject({ total: 1005, added: 1, duplicates: 1004 });
  const [contact] = await members(account, list.id);
  expect(done.rowDuplicates).toHaveLength(1000);
  expect(done.rowDuplicates[0]).toEqual({ row: 2, of: 1, contactId: contact.id });
  expect(done.rowDuplicates[999]).toEqual({ row: 1001, of: 1, contactId: contact.id });
});

test('contacts[] form: fields as POST /contacts takes them, rows numbered from 1', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const [ann, bo] = [uniquePhone(), uniquePhone()];
  const contacts = [
    { phone: ann, firstName: 'Ann', customFields: { plan: 'gold', score: 3 } }, // 1
    { phone_number: typed(bo), first_name: 'Bo', last_name: 'Li' }, // 2
    { email: 'bad@' }, // 3
    {}, // 4
    42, // 5
    { phone: ann, firstName: 'Ann again' }, // 6
    { email: 'cy@example.com', customFields: 'city' }, // 7
  ];
  const res = await importInto(account, list.id, { contacts });
  expect(res.status).toBe(202);
  expect(res.body.total).toBe(7);
  const done = await finished(account, res.body.id);
  expect(done).toMatchObject({ processed: 7, added: 2, alreadyInList: 0, duplicates: 1, rejected: 4 });
  expect(done.errors.map((e: any) => [e.row, e.code])).toEqual([
    [3, 'INVALID_EMAIL'],
    [4, 'MISSING_IDENTIFIER'],
    [5, 'VALIDATION_ERROR'],
    [7, 'VALIDATION_ERROR'],
  ]);
  expect(done.errors[3].message).toMatch(/^customFields: /);
  const added = byPhone(await members(account, list.id));
  expect(added[ann]).toMatchObject({ firstName: 'Ann', customFields: { plan: 'gold', score: 3 } });
  expect(added[bo]).toMatchObject({ firstName: 'Bo', lastName: 'Li' });
});

test('a request refused as a whole is answered 400, 404 or 413 and stores nothing', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const phone = uniquePhone();
  const refused = async (body: unknown, status: number, code: string) => {
    const res = await importInto(account, list.id, body);
    expectApiError(res, status, code);
    return res.body.error.message as string;
  };

  const missing = await refused(
    { csv: `Mobile,Name\r\n${phone},Ann`, columns: { phone: 'Phone', firstName: 'Name' } },
    400,
    'MISSING_COLUMN',
  );
  expect(missing).toMatch(/"Phone"/);
  expect(missing).toMatch(/"Mobile"/);
  // A file saved with semicolons (Excel in much of Europe), sent without its delimiter: one column, which says so.
  expect(
    await refused(
      { csv: `Phone;Name\r\n${phone};Ann`, columns: { phone: 'Phone', firstName: 'Name' } },
      400,
      'MISSING_COLUMN',
    ),
  ).toBe(
    ['phone', 'firstName']
      .map(
        (field) =>
          `columns.${field}: the file has no column "${field === 'phone' ? 'Phone' : 'Name'}"; its columns are ` +
          '"Phone;Name": its header is one column holding ";", so the file may be separated by it: give "delimiter":";"',
      )
      .join('; '),
  );
  expect(
    await refused(
      { csv: `Phone\tName\r\n${phone}\tAnn`, columns: { phone: 'Phone' }, delimiter: ';' },
      400,
      'MISSING_COLUMN',
    ),
  ).toMatch(/: give "delimiter":"\\t"$/);
  expect(
    await refused(
      { csv: `Phone\n${phone}`, columns: { phone: 'Phone', customFields: { city: 'City' } } },
      400,
      'MISSING_COLUMN',
    ),
  ).toMatch(/customFields\.city/);
  await refused({ csv: `Phone,Phone\n${phone},${phone}`, columns: { phone: 'Phone' } }, 400, 'DUPLICATE_COLUMN');
  // Every mapping the header cannot give, at once, each in error.fields; the code is the first one's.
  const several = await importInto(account, list.id, {
    csv: `Mobile,Mail,Mail\n${phone},a@example.com,b@example.com`,
    columns: { phone: 'Phone', email: 'Mail', customFields: { city: 'City' } },
  });
  expectApiError(several, 400, 'MISSING_COLUMN');
  expect(several.body.error.fields.map((f: { field: string; code: string }) => [f.field, f.code])).toEqual([
    ['columns.phone', 'MISSING_COLUMN'],
    ['columns.email', 'DUPLICATE_COLUMN'],
    ['columns.customFields.city', 'MISSING_COLUMN'],
  ]);
  await refused({ csv: '', columns: { phone: 'Phone' } }, 400, 'EMPTY_IMPORT');
  await refused({ csv: 'Phone\r\n', columns: { phone: 'Phone' } }, 400, 'EMPTY_IMPORT');
  await refused({ csv: 'Phone,Name\r\n\r\n,\r\n', columns: { phone: 'Phone' } }, 400, 'EMPTY_IMPORT');
  await refused({ contacts: [] }, 400, 'EMPTY_IMPORT');
  // Both over the 100 kB of other routes: the import's own limit lets them through to the row count.
  await refused({ contacts: Array.from({ length: 100_001 }, () => ({})) }, 400, 'TOO_MANY_ROWS');
  await refused({ csv: `Phone\n${`${phone}\n`.repeat(100_001)}`, columns: { phone: 'Phone' } }, 400, 'TOO_MANY_ROWS');
  expect(await refused({ csv: `Phone\n"${phone}\n`, columns: { phone: 'Phone' } }, 400, 'INVALID_CSV')).toBe(
    'csv: row 2 opens a field with a quote mark that is never closed, so the rest of the file would be read as that ' +
      'one field: close it, and write a quote mark inside a quoted field as two ("")',
  );
  await refused(
    { csv: `Phone\n${phone}`, columns: { phone: 'Phone' }, contacts: [{ phone }] },
    400,
    'VALIDATION_ERROR',
  );
  await refused({ csv: `Phone\n${phone}` }, 400, 'VALIDATION_ERROR');
  await refused({ contacts: [{ phone }], columns: { phone: 'Phone' } }, 400, 'VALIDATION_ERROR');
  await refused({ csv: `Name\nAnn`, columns: { firstName: 'Name' } }, 400, 'VALIDATION_ERROR');
  await refused({ csv: `Phone\n${phone}`, columns: { phone_numbr: 'Phone' } }, 400, 'VALIDATION_ERROR');
  await refused({ contacts: [{ phone }], delay: 'soon' }, 400, 'INVALID_DURATION');
  await refused(
    { csv: `Phone\n${`${phone}\n`.repeat(Math.ceil((20 * 1024 * 1024) / 13))}`, columns: { phone: 'Phone' } },
    413,
    'PAYLOAD_TOO_LARGE',
  );
  expectApiError(await importInto(account, 'lst_none', { contacts: [{ phone }] }), 404, 'LIST_NOT_FOUND');

  expect((await api(ctx.gw, account, 'GET', `lists/${list.id}/imports`)).body).toEqual({ data: [], nextCursor: null });
  expect(await members(account, list.id)).toEqual([]);
  expectApiError(
    await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } }),
    404,
    'CONTACT_NOT_FOUND',
  );
});

test('a header of many thousands of columns, none the mapped ones, is refused naming the first 20 of them, in an answer of kilobytes', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const header = Array.from({ length: 20_000 }, (_, i) => `Column ${i + 1}`);
  const customFields = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`field${i}`, `Missing ${i}`]));
  const res = await importInto(account, list.id, {
    csv: `${header.join(',')}\n${header.map(() => '1').join(',')}\n`,
    columns: { phone: 'Phone', customFields },
  });
  expectApiError(res, 400, 'MISSING_COLUMN');
  expect(res.body.error.fields).toHaveLength(10);
  const named = `${header
    .slice(0, 20)
    .map((h) => `"${h}"`)
    .join(', ')}, and 19980 more`;
  expect(res.body.error.fields[0].message).toBe(`the file has no column "Phone"; its columns are ${named}`);
  expect(JSON.stringify(res.body).length).toBeLessThan(200_000);

  // Columns written alike in another case: the refusal names 20 of them too.
  const alike = Array.from({ length: 5000 }, (_, i) => (i % 2 ? 'PHONE' : 'phone'));
  const twice = await importInto(account, list.id, {
    csv: `${alike.join(',')}\n${alike.map(() => '1').join(',')}\n`,
    columns: { phone: 'Phone' },
  });
  expectApiError(twice, 400, 'DUPLICATE_COLUMN');
  expect(twice.body.error.message).toBe(
    `columns.phone: the file has two columns "Phone": ${alike
      .slice(0, 20)
      .map((h) => `"${h}"`)
      .join(' and ')}, and 4980 more`,
  );
});

test("another account's import and list are not found, exactly as ones that never existed", async () => {
  const a = await createAccount(ctx.gw);
  const b = await createAccount(ctx.gw);
  const list = await newList(a);
  const created = (await importInto(a, list.id, { contacts: [{ phone: uniquePhone() }] })).body;
  await finished(a, created.id);

  const theirs = await api(ctx.gw, b, 'GET', `imports/${created.id}`);
  expectApiError(theirs, 404, 'IMPORT_NOT_FOUND');
  expect(theirs.body).toEqual((await api(ctx.gw, b, 'GET', 'imports/imp_never_existed')).body);
  expectApiError(await api(ctx.gw, b, 'GET', `lists/${list.id}/imports`), 404, 'LIST_NOT_FOUND');
  expectApiError(await importInto(b, list.id, { contacts: [{ phone: uniquePhone() }] }), 404, 'LIST_NOT_FOUND');
  expect((await api(ctx.gw, a, 'GET', `lists/${list.id}/imports`)).body.data.map((i: any) => i.id)).toEqual([
    created.id,
  ]);
  expect(await members(a, list.id)).toHaveLength(1);
});

test('a 1,200-row file is applied 500 rows at a time up to done, with exact counts; a list pages its imports newest first', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const { csv, rejectedRows } = bigFile();
  expect(csv.length).toBeGreaterThan(200_000);
  const res = await importInto(account, list.id, { csv, columns: BIG_COLUMNS });
  expect(res.status).toBe(202);
  expect(res.body).toMatchObject({ status: 'queued', total: 1200, processed: 0 });

  const seen: Array<{ status: string; processed: number }> = [];
  const done = await poll(
    async () => {
      const body = (await api(ctx.gw, account, 'GET', `imports/${res.body.id}`)).body;
      seen.push({ status: body.status, processed: body.processed });
      return body;
    },
    (body) => body.status === 'done',
    60_000,
  );
  expect(done).toMatchObject({
    status: 'done',
    total: 1200,
    processed: 1200,
    added: 1180,
    alreadyInList: 0,
    duplicates: 8,
    rejected: 12,
  });
  expect(done.errors).toEqual(rejectedRows.map((row) => ({ row, code: 'INVALID_PHONE', message: expect.any(String) })));
  // Progress moves a whole chunk at a time, never back, and is "running" only between chunks.
  for (const [i, s] of seen.entries()) {
    expect([0, 500, 1000, 1200]).toContain(s.processed);
    expect(s.status).toBe(s.processed === 0 ? 'queued' : s.processed === 1200 ? 'done' : 'running');
    if (i > 0) expect(s.processed).toBeGreaterThanOrEqual(seen[i - 1]!.processed);
  }
  const contacts = await members(account, list.id);
  expect(contacts).toHaveLength(1180);
  expect(new Set(contacts.map((c) => c.phone)).size).toBe(1180);

  const second = (await importInto(account, list.id, { contacts: [{ phone: uniquePhone() }] })).body;
  const first = await api(ctx.gw, account, 'GET', `lists/${list.id}/imports`, { query: { limit: '1' } });
  expect(first.body.data.map((i: any) => i.id)).toEqual([second.id]);
  expect(first.body.nextCursor).toEqual(expect.any(String));
  const next = await api(ctx.gw, account, 'GET', `lists/${list.id}/imports`, {
    query: { limit: '1', cursor: first.body.nextCursor },
  });
  expect(next.body).toEqual({
    data: [expect.objectContaining({ id: res.body.id, status: 'done', added: 1180 })],
    nextCursor: null,
  });
  expectApiError(
    await api(ctx.gw, account, 'GET', `lists/${list.id}/imports`, { query: { cursor: 'not-a-cursor' } }),
    400,
    'INVALID_CURSOR',
  );
});

test('rejected counts every bad row while errors keeps the first 1,000', async () => {
  const account = await createAccount(ctx.gw);
  const list = await newList(account);
  const csv = ['Phone', ...Array.from({ length: 1200 }, (_, i) => `bad-${i}`)].join('\n');
  const res = await importInto(account, list.id, { csv, columns: { phone: 'Phone' } });
  const done = await finished(account, res.body.id);
  expect(done).toMatchObject({ total: 1200, processed: 1200, added: 0, rejected: 1200 });
  expect(done.errors).toHaveLength(1000);
  expect(done.errors[0]).toEqual({ row: 2, code: 'INVALID_PHONE', message: expect.stringContaining('bad-0') });
  expect(done.errors[999].row).toBe(1001);
});

describe('a Live campaign on the list', () => {
  async function liveCampaign(account: TestAccount, sendRate: string) {
    const list = await newList(account);
    const created = await api(ctx.gw, account, 'POST', 'campaigns', {
      body: {
        name: 'Funnel',
        channel: 'sms',
        listId: list.id,
        openingMessage: 'Hi {{first_name|there}}!',
        triggerOnNewContacts: true,
        status: 'live',
        sendRate,
      },
    });
    expect(created.status).toBe(201);
    return { list, campaign: created.body };
  }

  const outgoing = async (account: TestAccount, contactId: string) =>
    ((await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages`)).body.data as any[]).filter(
      (m) => m.direction === 'outgoing',
    );

  const conversations = async (account: TestAccount) =>
    (await api(ctx.gw, account, 'GET', 'conversations', { query: { limit: '200' } })).body.data as any[];

  test('sends its opening message to every imported contact: 3 at once, the rest at its rate, none to one already on the list', async () => {
    const account = await createAccount(ctx.gw);
    const { list, campaign } = await liveCampaign(account, '120/m'); // one every 500 ms
    const earlier = (
      await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone(), firstName: 'Earlier' } })
    ).body;
    await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: earlier.id } });
    await poll(
      () => outgoing(account, earlier.id),
      (m) => m.length === 1,
    );

    const names = ['Ann', 'Bo', 'Cy', 'Di', 'Ed', 'Flo'];
    const started = ctx.gw.now();
    const res = await importInto(account, list.id, {
      contacts: [...names.map((firstName) => ({ phone: uniquePhone(), firstName })), { phone: earlier.phone }],
    });
    expect(res.status).toBe(202);
    expect(await finished(account, res.body.id)).toMatchObject({ added: 6, alreadyInList: 1 });
    const imported = (await members(account, list.id)).filter((c) => c.id !== earlier.id);
    expect(imported.map((c) => c.firstName).sort()).toEqual([...names].sort());

    const sent = await poll(
      async () => (await Promise.all(imported.map((c) => outgoing(account, c.id)))).flat(),
      (all) => all.length === 6 && all.every((m) => m.status === 'sent'),
      20_000,
    );
    expect(sent.map((m) => m.body).sort()).toEqual(names.map((n) => `Hi ${n}!`).sort());
    expect(sent.every((m) => m.campaignId === campaign.id && m.author === 'campaign' && m.channel === 'sms')).toBe(
      true,
    );
    const times = sent.map((m) => Date.parse(m.createdAt) - started).sort((x, y) => x - y);
    expect(times.slice(0, 3).every((t) => t < 3000)).toBe(true);
    expect(times[5]! - times[0]!).toBeGreaterThanOrEqual(3 * 500 - 100);
    expect(await outgoing(account, earlier.id)).toHaveLength(1);
    const opened = (await conversations(account)).filter((c) => imported.some((i) => i.id === c.contactId));
    expect(opened.map((c) => [c.campaignId, c.opening.status])).toEqual(imported.map(() => [campaign.id, 'sent']));
  });

  test('names the imported contacts it cannot reach, by reason, a page at a time', async () => {
    const account = await createAccount(ctx.gw);
    const { list, campaign } = await liveCampaign(account, '30/m');
    const csv = [
      'Name,Phone,Email',
      'Ann,,ann@example.com',
      'Bo,555-0110,bo@example.com',
      `Cy,${uniquePhone()},`,
      'Di,(415) 555-0109 ext. 2,di@example.com',
    ].join('\n');
    const res = await importInto(account, list.id, {
      csv,
      columns: { firstName: 'Name', phone: 'Phone', email: 'Email' },
    });
    expect(await finished(account, res.body.id)).toMatchObject({ added: 4, warnings: 2, unreachable: 3 });
    const counted = (await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}`)).body.unreachable;
    expect(counted).toMatchObject({ total: 3, byReason: { no_phone: 3 } });

    const first = await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/unreachable`, { query: { limit: '2' } });
    expect(first.status).toBe(200);
    const next = await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/unreachable`, {
      query: { limit: '2', cursor: first.body.nextCursor },
    });
    expect(next.body.nextCursor).toBeNull();
    const named = [...first.body.data, ...next.body.data];
    expect(named.map((u: any) => [u.reason, u.contact.firstName, u.contact.email, u.contact.phone])).toEqual([
      ['no_phone', 'Ann', 'ann@example.com', ''],
      ['no_phone', 'Bo', 'bo@example.com', ''],
      ['no_phone', 'Di', 'di@example.com', ''],
    ]);
    expect(named.every((u: any) => u.contactId === u.contact.id)).toBe(true);
    expect(
      (await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/unreachable`, { query: { reason: 'no_phone' } }))
        .body.data,
    ).toHaveLength(3);
    expect(
      (await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/unreachable`, { query: { reason: 'opted_out' } }))
        .body,
    ).toEqual({ data: [], nextCursor: null });
    expectApiError(
      await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/unreachable`, { query: { reason: 'busy' } }),
      400,
      'VALIDATION_ERROR',
    );
    // A cursor is good for its filters only; another account finds no such campaign.
    expectApiError(
      await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/unreachable`, {
        query: { reason: 'no_phone', cursor: first.body.nextCursor },
      }),
      400,
      'INVALID_CURSOR',
    );
    const other = await createAccount(ctx.gw);
    expectApiError(await api(ctx.gw, other, 'GET', `campaigns/${campaign.id}/unreachable`), 404, 'CAMPAIGN_NOT_FOUND');
  });

  test('an import with a delay holds the opening messages that long', async () => {
    const account = await createAccount(ctx.gw);
    const { list } = await liveCampaign(account, '30/m');
    const res = await importInto(account, list.id, {
      contacts: [{ phone: uniquePhone(), firstName: 'Later' }],
      delay: '1h',
    });
    expect(res.status).toBe(202);
    await finished(account, res.body.id);
    const [contact] = await members(account, list.id);
    const conversation = (await conversations(account)).find((c) => c.contactId === contact.id);
    expect(conversation.opening.status).toBe('queued');
    expect(conversation.next.kind).toBe('opening');
    expect(Date.parse(conversation.next.at) - Date.now()).toBeGreaterThan(59 * 60_000);
    expect(await outgoing(account, contact.id)).toEqual([]);
  });
});

describe('a gateway stopped right after accepting an import', () => {
  let gw: GatewayProcess | undefined;
  afterAll(async () => {
    await gw?.stop();
    if (gw) removeDir(gw.dataDir);
  });

  test('finishes it once started again, every row applied once', async () => {
    // A short lease (longer than the webhook timeout, as the gateway asks): on PostgreSQL, a chunk that the killed
    // process had claimed is taken over soon after.
    const env = { LEADCHAT_JOB_POLL: '200ms', LEADCHAT_JOB_LEASE: '5s', LEADCHAT_WEBHOOK_TIMEOUT: '2s' };
    gw = await startGateway(env);
    const account = await createAccount(gw);
    const list = await newList(account, gw);
    const { csv } = bigFile();
    const res = await importInto(account, list.id, { csv, columns: BIG_COLUMNS }, gw);
    expect(res.status).toBe(202);
    await gw.kill();

    gw = await startGateway(env, gw.dataDir);
    // The chunk the crash interrupted was kept whole or not at all.
    expect([0, 500, 1000, 1200]).toContain((await api(gw, account, 'GET', `imports/${res.body.id}`)).body.processed);
    const done = await finished(account, res.body.id, gw, 60_000);
    expect(done).toMatchObject({
      total: 1200,
      processed: 1200,
      added: 1180,
      alreadyInList: 0,
      duplicates: 8,
      rejected: 12,
    });
    expect(done.errors).toHaveLength(12);
    const contacts = await members(account, list.id, gw);
    expect(contacts).toHaveLength(1180);
    expect(new Set(contacts.map((c) => c.phone)).size).toBe(1180);
  }, 120_000);
});
