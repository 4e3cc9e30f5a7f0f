import { api, createAccount, expectApiError, poll, uniquePhone, useGateway } from './api-support';

/**
 * Large imports. A 50,000-row file (what the console's import sends for a large list) imports without holding the
 * server: while the import job works through its chunks, other requests of the same account are answered and their
 * changes are stored, and the import ends with every row counted. A file of up to 20 MB imports, and one over is
 * refused naming its size.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '200ms' });
const ROWS = 50_000;

test('a 50,000-row import runs chunk by chunk while the API keeps answering', async () => {
  const account = await createAccount(ctx.gw);
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Big' } })).body;
  const lines = ['Phone,First name'];
  for (let i = 0; i < ROWS; i++) lines.push(`+1555${String(7_000_000 + i).padStart(7, '0')},Lead ${i}`);
  const started = await api(ctx.gw, account, 'POST', `lists/${list.id}/imports`, {
    body: { csv: lines.join('\n'), columns: { phone: 'Phone', firstName: 'First name' } },
  });
  expect(started.status).toBe(202);

  // Requests made while the import is part-way are answered, and what they change is there.
  let answeredDuring = 0;
  const done = await poll(
    async () => {
      const progress = (await api(ctx.gw, account, 'GET', `imports/${started.body.id}`)).body;
      if (progress.status === 'running' && progress.processed > 0 && progress.processed < ROWS) {
        const created = await api(ctx.gw, account, 'POST', 'contacts', {
          body: { email: `during-${answeredDuring}@example.com` },
        });
        expect(created.status).toBe(201);
        answeredDuring += 1;
      }
      return progress;
    },
    (progress) => progress.status === 'done',
    170_000,
  );
  expect(answeredDuring).toBeGreaterThan(0);
  expect(done).toMatchObject({ status: 'done', total: ROWS, processed: ROWS, added: ROWS, duplicates: 0, rejected: 0 });
  const during = await api(ctx.gw, account, 'GET', 'contacts', { query: { email: 'during-0@example.com' } });
  expect(during.status).toBe(200);
}, 180_000);

test('a file of up to 20 MB imports whatever its quote marks and line ends take in JSON; one over is 413 naming its size', async () => {
  const account = await createAccount(ctx.gw);
  // As Outlook and many CRMs export: every field quoted, notes holding quotes and line breaks. Each `"` and CRLF
  // takes twice its bytes as a JSON string, so this 19.5 MB file is a request of about 33 MB.
  const notes = `"${'said ""yes"" on the call\r\n'.repeat(780)}"`;
  const rows = Array.from({ length: 1_000 }, (_, i) => `"${uniquePhone()}","Lead ${i}",${notes}`);
  const csv = ['"Phone","Name","Notes"', ...rows].join('\r\n');
  expect(Buffer.byteLength(csv) / 2 ** 20).toBeGreaterThan(19);
  expect(Buffer.byteLength(csv)).toBeLessThanOrEqual(20 * 2 ** 20);
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Exported from a CRM' } })).body;
  const started = await api(ctx.gw, account, 'POST', `lists/${list.id}/imports`, {
    body: { csv, columns: { phone: 'Phone', firstName: 'Name' } },
  });
  expect(started.status).toBe(202);
  const done = await poll(
    async () => (await api(ctx.gw, account, 'GET', `imports/${started.body.id}`)).body,
    (progress) => progress.status === 'done',
    60_000,
  );
  expect(done).toMatchObject({ total: 1_000, added: 1_000, rejected: 0 });

  const refused = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Too large' } })).body;
  const over = `${csv}\r\n${rows.slice(0, 90).join('\r\n')}`;
  const res = await api(ctx.gw, account, 'POST', `lists/${refused.id}/imports`, {
    body: { csv: over, columns: { phone: 'Phone', firstName: 'Name' } },
  });
  expectApiError(res, 413, 'PAYLOAD_TOO_LARGE');
  expect(res.body.error.message).toBe(
    `csv: the file is ${(Buffer.byteLength(over) / 2 ** 20).toFixed(1)} MB; an import takes at most 20 MB: split it and import each part`,
  );
  // Contact objects are held to the same 20 MB, as JSON.
  const contacts = Array.from({ length: 1_100 }, () => ({
    phone: uniquePhone(),
    customFields: { notes: 'n'.repeat(2000) },
  }));
  const objects = Array.from({ length: 10 }, () => contacts).flat();
  expectApiError(
    await api(ctx.gw, account, 'POST', `lists/${refused.id}/imports`, { body: { contacts: objects } }),
    413,
    'PAYLOAD_TOO_LARGE',
  );
  expect((await api(ctx.gw, account, 'GET', `lists/${refused.id}/imports`)).body.data).toEqual([]);
});
