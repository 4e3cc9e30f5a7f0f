import { api, createAccount, poll, useGateway } from './api-support';

/**
 * A 50,000-row file (what the console's import sends for a large list) imports without holding the server: while
 * the import job works through its chunks, other requests of the same account are answered and their changes are
 * stored, and the import ends with every row counted.
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
