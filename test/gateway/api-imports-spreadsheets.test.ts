import { api, createAccount, expectApiError, poll, uniquePhone, useGateway, type TestAccount } from './api-support';

/**
 * Imports of files as spreadsheets save them (Excel, Google Sheets, Numbers): what those tools do to a file is read,
 * or told by row in words that say what the tool did and how to save the file so that it reads.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '200ms' });

async function imported(account: TestAccount, body: Record<string, unknown>): Promise<{ listId: string; done: any }> {
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'From a spreadsheet' } })).body;
  const res = await api(ctx.gw, account, 'POST', `lists/${list.id}/imports`, { body });
  expect(res.status).toBe(202);
  const done = await poll(
    () => api(ctx.gw, account, 'GET', `imports/${res.body.id}`),
    (r) => r.status !== 200 || r.body.status === 'done',
    30_000,
  );
  expect({ status: done.status, importStatus: done.body.status }).toEqual({ status: 200, importStatus: 'done' });
  return { listId: list.id, done: done.body };
}

test('a phone a spreadsheet shortened to scientific notation (4.47701E+11) is never imported, and the row says so and how to save it', async () => {
  const account = await createAccount(ctx.gw);
  expect((await api(ctx.gw, account, 'PUT', 'settings', { body: { defaultCountry: 'US' } })).status).toBe(200);
  const whole = uniquePhone();
  const csv = [
    'Phone,Name,Email', // row 1
    '4.47701E+11,Ann,ann@example.com', // 2: kept by the email, without the phone
    '4.15555E+10,Bo,', // 3: nothing else to find Bo by
    `${whole.slice(1)},Cy,`, // 4: the plus dropped, every digit kept: a US number
  ].join('\r\n');
  const { done } = await imported(account, { csv, columns: { phone: 'Phone', firstName: 'Name', email: 'Email' } });
  const shortened = /scientific notation.*last digits.*save the file again/;
  expect(done).toMatchObject({ total: 3, added: 2, rejected: 1, warnings: 1 });
  expect(done.errors).toEqual([{ row: 3, code: 'INVALID_PHONE', message: expect.stringMatching(shortened) }]);
  expect(done.rowWarnings).toEqual([
    expect.objectContaining({
      row: 2,
      field: 'phone',
      value: '4.47701E+11',
      message: expect.stringMatching(shortened),
    }),
  ]);
  // Excel where the decimal mark is a comma writes "4,47701E+11" in its semicolon file: the same.
  const european = await imported(account, {
    csv: 'Phone;Name\r\n4,47701E+11;Di\r\n',
    columns: { phone: 'Phone', firstName: 'Name' },
    delimiter: ';',
  });
  expect(european.done.errors).toEqual([{ row: 2, code: 'INVALID_PHONE', message: expect.stringMatching(shortened) }]);
  // POST /contacts tells the same.
  const res = await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: '4.47701E+11' } });
  expectApiError(res, 400, 'INVALID_PHONE');
  expect(res.body.error.message).toMatch(shortened);
});

test('a quote mark opening a field that is never closed is 400 INVALID_CSV naming the row it opens on, not the end of the file', async () => {
  const account = await createAccount(ctx.gw);
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Unclosed' } })).body;
  const rows = Array.from({ length: 40 }, (_, i) => `${uniquePhone()},Lead ${i},`);
  const csv = [
    'Phone,Name,Notes', // row 1, line 1
    `${uniquePhone()},Ann,"two\r\nlines"`, // row 2, lines 2-3
    `${uniquePhone()},"Bo,`, // row 3, line 4: its quote is never closed
    ...rows, // the rest of the file is read as Bo's name
  ].join('\r\n');
  const res = await api(ctx.gw, account, 'POST', `lists/${list.id}/imports`, {
    body: { csv, columns: { phone: 'Phone', firstName: 'Name' } },
  });
  expectApiError(res, 400, 'INVALID_CSV');
  expect(res.body.error.message).toMatch(/^csv: row 3 opens a field with a quote mark that is never closed/);
  // The parser's count of lines, at the end of the file and doubling a CRLF inside a quoted field, is no help.
  expect(res.body.error.message).not.toMatch(/line/);
  // Past the first 256 kB the file is read in: row 3,002 of a file of 3,001 rows of 100 characters before it.
  const padded = [
    'Phone,Name,Notes',
    ...Array.from({ length: 3000 }, (_, i) => `${uniquePhone()},Lead ${i},${'n'.repeat(80)}`),
  ];
  const late = await api(ctx.gw, account, 'POST', `lists/${list.id}/imports`, {
    body: { csv: [...padded, `${uniquePhone()},"Bo,`, ...rows].join('\r\n'), columns: { phone: 'Phone' } },
  });
  expectApiError(late, 400, 'INVALID_CSV');
  expect(late.body.error.message).toMatch(/^csv: row 3002 opens a field/);
  expect((await api(ctx.gw, account, 'GET', `lists/${list.id}/imports`)).body.data).toEqual([]);
});

test('a mapped column is found in a header written in another case or spacing; two it could be are 400 DUPLICATE_COLUMN', async () => {
  const account = await createAccount(ctx.gw);
  const phone = uniquePhone();
  const csv = `PHONE NUMBER,first\u00a0 name,E-Mail\r\n${phone},Ann,ann@example.com\r\n`;
  const columns = { phone: 'Phone number', firstName: 'First name', email: 'e-mail' };
  const { listId, done } = await imported(account, { csv, columns });
  expect(done).toMatchObject({ total: 1, added: 1, rejected: 0 });
  const member = (await api(ctx.gw, account, 'GET', `lists/${listId}/contacts`)).body.data[0];
  expect(member).toMatchObject({ phone, firstName: 'Ann', email: 'ann@example.com' });

  // The header written as it is mapped is that column, even beside one in another case.
  const both = `Email,EMAIL,Phone\r\nann@example.com,old@example.com,${phone}\r\n`;
  const exact = await imported(account, { csv: both, columns: { phone: 'Phone', email: 'EMAIL' } });
  expect(exact.done).toMatchObject({ added: 1, rejected: 0 });
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Ambiguous' } })).body;
  const res = await api(ctx.gw, account, 'POST', `lists/${list.id}/imports`, {
    body: { csv: both, columns: { phone: 'Phone', email: 'email' } },
  });
  expectApiError(res, 400, 'DUPLICATE_COLUMN');
  expect(res.body.error.fields).toEqual([
    {
      field: 'columns.email',
      code: 'DUPLICATE_COLUMN',
      message: 'the file has two columns "email": "Email" and "EMAIL"',
    },
  ]);
});

test('a phone written with the spaces and dashes of word processors and French number formats is read as its number', async () => {
  const account = await createAccount(ctx.gw);
  const csv = [
    'Phone,Name',
    '+33\u202f6\u202f12\u202f34\u202f56\u202f78,Narrow no-break spaces', // French grouping in Excel and Numbers
    '+1 415\u2013555\u20130123,En dashes', // a word processor's "smart" dashes
    '+44\u00a07700\u2011900123,No-break hyphen',
  ].join('\r\n');
  const { listId, done } = await imported(account, { csv, columns: { phone: 'Phone', firstName: 'Name' } });
  expect(done).toMatchObject({ total: 3, added: 3, rejected: 0, errors: [] });
  const members = (await api(ctx.gw, account, 'GET', `lists/${listId}/contacts`)).body.data;
  expect(members.map((m: any) => m.phone).sort()).toEqual(['+14155550123', '+33612345678', '+447700900123']);
});

test('empty fields past the header (cells a sheet once held) and fields missing at the end of a row are read as empty; text past the header is WRONG_FIELD_COUNT', async () => {
  const account = await createAccount(ctx.gw);
  const phones = Array.from({ length: 5 }, () => uniquePhone());
  const csv = [
    'Phone,Name,City', // row 1
    `${phones[0]},Ann,Lyon,,`, // 2: two cells once held something, as Excel and Google Sheets write them
    `${phones[1]},Bo,, ,`, // 3: City empty, and past it nothing but a space
    `${phones[2]},Cy`, // 4: City left out, as some exporters write an empty last cell
    `${phones[3]}`, // 5: all but the phone left out
    `${phones[4]},Smith, Jr,Nice,`, // 6: an unquoted comma: "Nice" sits under no header
    ',,,,', // 7: a blank row Excel writes within its range: no row to import
  ].join('\r\n');
  const { listId, done } = await imported(account, {
    csv,
    columns: { phone: 'Phone', firstName: 'Name', customFields: { city: 'City' } },
  });
  expect(done).toMatchObject({ total: 5, added: 4, rejected: 1 });
  expect(done.errors).toEqual([
    { row: 6, code: 'WRONG_FIELD_COUNT', message: 'the row has 5 fields where the header has 3' },
  ]);
  const members = (await api(ctx.gw, account, 'GET', `lists/${listId}/contacts`)).body.data;
  expect(members.map((m: any) => [m.phone, m.firstName, m.customFields ?? null])).toEqual([
    [phones[0], 'Ann', { city: 'Lyon' }],
    [phones[1], 'Bo', null],
    [phones[2], 'Cy', null],
    [phones[3], '', null],
  ]);
});

test("Excel's first line naming the separator (sep=;) is read as the separator and is no row; one an import does not take is 400 INVALID_CSV", async () => {
  const account = await createAccount(ctx.gw);
  const [a, b, c, d] = [uniquePhone(), uniquePhone(), uniquePhone(), uniquePhone()];
  const columns = { phone: 'Phone', firstName: 'Name', customFields: { city: 'City' } };
  // Sent without a delimiter, or with another: the file's own line decides, as in Excel, which does not show it.
  const semicolon = await imported(account, {
    csv: `sep=;\r\nPhone;Name;City\r\n${a};"Smith, Ann";Lyon\r\nnot a phone;Bo;Nice\r\n`,
    columns,
  });
  expect(semicolon.done).toMatchObject({ total: 2, added: 1, rejected: 1 });
  expect(semicolon.done.errors).toEqual([{ row: 3, code: 'INVALID_PHONE', message: expect.any(String) }]);
  const tab = await imported(account, {
    csv: `\ufeffSEP=\t\nPhone\tName\tCity\n${b}\tBo\tParis\n`,
    columns,
    delimiter: ';',
  });
  expect(tab.done).toMatchObject({ total: 1, added: 1, rejected: 0 });
  const comma = await imported(account, { csv: `sep=,\r\nPhone,Name,City\r\n${c},Cy,Nice`, columns, delimiter: '|' });
  expect(comma.done).toMatchObject({ total: 1, added: 1, rejected: 0 });
  const members = [
    ...(await api(ctx.gw, account, 'GET', `lists/${semicolon.listId}/contacts`)).body.data,
    ...(await api(ctx.gw, account, 'GET', `lists/${tab.listId}/contacts`)).body.data,
    ...(await api(ctx.gw, account, 'GET', `lists/${comma.listId}/contacts`)).body.data,
  ];
  expect(members.map((m: any) => [m.phone, m.firstName, m.customFields])).toEqual([
    [a, 'Smith, Ann', { city: 'Lyon' }],
    [b, 'Bo', { city: 'Paris' }],
    [c, 'Cy', { city: 'Nice' }],
  ]);

  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Colons' } })).body;
  const res = await api(ctx.gw, account, 'POST', `lists/${list.id}/imports`, {
    body: { csv: `sep=:\r\nPhone:Name\r\n${d}:Di\r\n`, columns: { phone: 'Phone' } },
  });
  expectApiError(res, 400, 'INVALID_CSV');
  expect(res.body.error.message).toBe(
    'csv: the file\'s first line "sep=:" names ":" as its separator; an import takes a comma, a semicolon, a tab or a pipe: save the file with one of them',
  );
});

test('a cell an exporter wrote as Excel\'s text formula (="+447700900123", ="00123") is read as its text', async () => {
  const account = await createAccount(ctx.gw);
  const [a, b] = [uniquePhone(), uniquePhone()];
  const quoted = (cell: string) => `"${cell.replace(/"/g, '""')}"`;
  const csv = [
    'Phone,Name,Customer no,Formula',
    `="${a}",="Ann",="00123",=SUM(A1:A2)`, // as written bare
    [`="${b}"`, '="Bo ""B"""', '="00124"', '="x" & "y"'].map(quoted).join(','), // as written quoted
  ].join('\r\n');
  const { listId, done } = await imported(account, {
    csv,
    columns: { phone: 'Phone', firstName: 'Name', externalIds: { crm: 'Customer no' }, customFields: { f: 'Formula' } },
  });
  expect(done).toMatchObject({ total: 2, added: 2, rejected: 0, errors: [] });
  const members = (await api(ctx.gw, account, 'GET', `lists/${listId}/contacts`)).body.data;
  expect(members.map((m: any) => [m.phone, m.firstName, m.externalIds, m.customFields])).toEqual([
    [a, 'Ann', { crm: '00123' }, { f: '=SUM(A1:A2)' }],
    [b, 'Bo "B"', { crm: '00124' }, { f: '="x" & "y"' }],
  ]);
});

test("a number an exporter wrote after Excel's text prefix ('+16135550135, '02134, as Shopify does) is read as the number; a name starting with one keeps it", async () => {
  const account = await createAccount(ctx.gw);
  const [a, b] = [uniquePhone(), uniquePhone()];
  const csv = [
    'First Name,Last Name,Phone,Zip,Customer no',
    `Ann,'t Hart,'${a},'02134,'00123`,
    `Bo,Lee,"'${b.slice(0, 2)} ${b.slice(2, 5)} ${b.slice(5)}",'90s fan,'x`,
  ].join('\r\n');
  const { listId, done } = await imported(account, {
    csv,
    columns: {
      phone: 'Phone',
      firstName: 'First Name',
      lastName: 'Last Name',
      customFields: { zip: 'Zip' },
      externalIds: { shop: 'Customer no' },
    },
  });
  expect(done).toMatchObject({ total: 2, added: 2, rejected: 0, errors: [], warnings: 0 });
  const members = (await api(ctx.gw, account, 'GET', `lists/${listId}/contacts`)).body.data;
  expect(members.map((m: any) => [m.phone, m.lastName, m.customFields, m.externalIds])).toEqual([
    [a, "'t Hart", { zip: '02134' }, { shop: '00123' }],
    [b, 'Lee', { zip: "'90s fan" }, { shop: "'x" }],
  ]);
});

test('empty rows above the header, as Excel saves a sheet whose first rows were cleared, are no header: the header is the first row holding something, rows numbered as the sheet shows them', async () => {
  const account = await createAccount(ctx.gw);
  const [a, b] = [uniquePhone(), uniquePhone()];
  const csv = [
    ',,', // row 1, cleared
    '', // row 2
    'Phone,Name,Email', // row 3
    `${a},Ann,`, // row 4
    'not a phone,Bo,', // row 5
    `${b},Cy,`, // row 6
  ].join('\r\n');
  const { listId, done } = await imported(account, { csv, columns: { phone: 'Phone', firstName: 'Name' } });
  expect(done).toMatchObject({ total: 3, added: 2, rejected: 1 });
  expect(done.errors).toEqual([expect.objectContaining({ row: 5, code: 'INVALID_PHONE' })]);
  const members = (await api(ctx.gw, account, 'GET', `lists/${listId}/contacts`)).body.data;
  expect(members.map((m: any) => [m.phone, m.firstName])).toEqual([
    [a, 'Ann'],
    [b, 'Cy'],
  ]);
  // A file of empty rows has no header and no rows.
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Blank' } })).body;
  const blank = await api(ctx.gw, account, 'POST', `lists/${list.id}/imports`, {
    body: { csv: ',,\r\n\r\n,,\r\n', columns: { phone: 'Phone' } },
  });
  expectApiError(blank, 400, 'EMPTY_IMPORT');
});
