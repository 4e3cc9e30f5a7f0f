import path from 'node:path';
import { getCountries } from 'libphonenumber-js';
import {
  api,
  createAccount,
  expectApiError,
  poll,
  Receiver,
  settledMessage,
  uniquePhone,
  useGateway,
  type TestAccount,
} from './api-support';
import { gatewayModule } from '../helpers/gateway-modules';

type Contract = typeof import('../../gateway/src/api-contract.js', { with: { 'resolution-mode': 'import' } });

/**
 * Issue 37: phone numbers as people write them. With `defaultCountry` in the settings, "(415) 555-0100" is read as a
 * number of that country wherever the account gives a phone (contacts, imports, incoming messages, sends); a number
 * with a + is read as written; an import row whose phone cannot be read but which has an email or an external ID is
 * imported without it, as a warning.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '200ms' });
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/** "+15551230001" as a person in the US writes it: "(555) 123-0001". */
const national = (e164: string) => `(${e164.slice(2, 5)}) ${e164.slice(5, 8)}-${e164.slice(8)}`;

const setCountry = (account: TestAccount, defaultCountry: unknown) =>
  api(ctx.gw, account, 'PUT', 'settings', { body: { defaultCountry } });

async function accountIn(country: string | null): Promise<TestAccount> {
  const account = await createAccount(ctx.gw);
  if (country) expect((await setCountry(account, country)).body.defaultCountry).toBe(country);
  return account;
}

/** Imports `csv` into a new list of the account and waits for the import to be done. */
async function imported(
  account: TestAccount,
  csv: string,
  columns: Record<string, unknown>,
): Promise<{ listId: string; done: any }> {
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Patients' } })).body;
  const res = await api(ctx.gw, account, 'POST', `lists/${list.id}/imports`, { body: { csv, columns } });
  expect(res.status).toBe(202);
  expect(res.body).toMatchObject({ warnings: 0, rowWarnings: [] });
  const done = await poll(
    () => api(ctx.gw, account, 'GET', `imports/${res.body.id}`),
    (r) => r.status !== 200 || r.body.status === 'done',
    30_000,
  );
  expect({ status: done.status, importStatus: done.body.status }).toEqual({ status: 200, importStatus: 'done' });
  return { listId: list.id, done: done.body };
}

async function listMembers(account: TestAccount, listId: string): Promise<any[]> {
  const page = await api(ctx.gw, account, 'GET', `lists/${listId}/contacts`, { query: { limit: '200' } });
  expect(page.body.nextCursor).toBeNull();
  return page.body.data;
}

describe('the defaultCountry setting', () => {
  test('is null until set; set, shown, case-insensitive, and cleared with null', async () => {
    const account = await createAccount(ctx.gw);
    expect((await api(ctx.gw, account, 'GET', 'settings')).body.defaultCountry).toBeNull();

    const set = await setCountry(account, 'US');
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ defaultCountry: 'US', handoffAssignment: 'none', customChannelWebhookUrl: null });
    expect((await api(ctx.gw, account, 'GET', 'settings')).body.defaultCountry).toBe('US');

    expect((await setCountry(account, ' gb ')).body.defaultCountry).toBe('GB');
    // Changing another setting keeps it.
    await api(ctx.gw, account, 'PUT', 'settings', { body: { handoffAssignment: 'round_robin' } });
    expect((await api(ctx.gw, account, 'GET', 'settings')).body.defaultCountry).toBe('GB');

    const cleared = await setCountry(account, null);
    expect(cleared.status).toBe(200);
    expect(cleared.body.defaultCountry).toBeNull();
    expect((await api(ctx.gw, account, 'GET', 'settings')).body.defaultCountry).toBeNull();
  });

  test.each([
    ['an unknown code', 'ZZ'],
    ['a three-letter code', 'USA'],
    ['a country name', 'France'],
    ['an empty text', ''],
    ['a number', 1],
  ])('%s is 400 VALIDATION_ERROR naming defaultCountry, and the saved one stays', async (_what, value) => {
    const account = await accountIn('DE');
    const res = await setCountry(account, value);
    expectApiError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.fields).toEqual([expect.objectContaining({ field: 'defaultCountry' })]);
    expect(res.body.error.message).toMatch(/^defaultCountry: /);
    expect((await api(ctx.gw, account, 'GET', 'settings')).body.defaultCountry).toBe('DE');
  });

  test('the console offers the countries the API takes: every numbering plan the gateway reads', async () => {
    const { PHONE_COUNTRIES } = (await gatewayModule(
      path.resolve(__dirname, '../../gateway/dist/api-contract.js'),
    )) as Contract;
    expect([...PHONE_COUNTRIES].sort()).toEqual([...getCountries()].sort());
    const account = await createAccount(ctx.gw);
    for (const code of ['XK', 'AC', 'FR', 'JP'])
      expect((await setCountry(account, code)).body.defaultCountry).toBe(code);
  });

  test('the OpenAPI document describes it in the settings body', async () => {
    const doc = (await api(ctx.gw, undefined, 'GET', 'openapi.json')).body;
    const body = doc.paths['/settings'].put.requestBody.content['application/json'].schema;
    expect(body.properties.defaultCountry).toEqual(
      expect.objectContaining({ description: expect.stringMatching(/country code/) }),
    );
  });
});

describe('contacts', () => {
  test('a phone quoted in its refusal is cut before an emoji, never inside it', async () => {
    const account = await accountIn('DE');
    // 39 characters, then an emoji of two UTF-16 units: a cut at 40 would keep half of it.
    const phone = `${'0151 1234 5678 9012 3456 7890 1234 5678'.slice(0, 39)}📞`;
    const refused = await api(ctx.gw, account, 'POST', 'contacts', { body: { phone } });
    expectApiError(refused, 400, 'INVALID_PHONE');
    expect(refused.body.error.message).toContain(`"${phone.slice(0, 39)}"`);
    expect(refused.body.error.message).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  test('under US, a national number is the contact of its E.164 form: same id, 200, and found by either', async () => {
    const account = await accountIn('US');
    const phone = uniquePhone();
    const created = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { phone: national(phone), firstName: 'Ann' },
    });
    expect(created.status).toBe(201);
    expect(created.body.phone).toBe(phone);

    const again = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { phone: `+1 ${phone.slice(2, 5)} ${phone.slice(5, 8)} ${phone.slice(8)}` },
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(created.body.id);
    const snake = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { phone_number: `${phone.slice(2, 5)}.${phone.slice(5, 8)}.${phone.slice(8)}` },
    });
    expect({ status: snake.status, id: snake.body.id }).toEqual({ status: 200, id: created.body.id });

    for (const phoneNumber of [national(phone), phone, phone.slice(2)]) {
      const found = await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber } });
      expect({ phoneNumber, status: found.status, id: found.body.id }).toEqual({
        phoneNumber,
        status: 200,
        id: created.body.id,
      });
    }
  });

  test('a number with a + is read as written whatever the default country', async () => {
    const account = await accountIn('US');
    const res = await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: '+44 20 7946 0958' } });
    expect({ status: res.status, phone: res.body.phone }).toEqual({ status: 201, phone: '+442079460958' });
  });

  test('under GB, a national number with its trunk 0 is a UK number', async () => {
    const account = await accountIn('GB');
    const res = await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: '020 7946 0959' } });
    expect({ status: res.status, phone: res.body.phone }).toEqual({ status: 201, phone: '+442079460959' });
  });

  test('under US, a number too short to be one is still 400 INVALID_PHONE', async () => {
    const account = await accountIn('US');
    const res = await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: '555-0100' } });
    expectApiError(res, 400, 'INVALID_PHONE');
    expect(res.body.error.message).toMatch(/US/);
  });

  test('a number written with 00 before its country code is refused saying to write a plus, with or without a default country', async () => {
    for (const account of [await createAccount(ctx.gw), await accountIn('US')]) {
      const res = await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: '0044 20 7946 0958' } });
      expectApiError(res, 400, 'INVALID_PHONE');
      expect(res.body.error.message).toBe(
        'phone: "0044 20 7946 0958" writes its country code after 00: write a plus instead, as "+44 20 7946 0958"',
      );
    }
  });

  test('without a default country a national number is refused as before, saying how to write it or what to set', async () => {
    const account = await createAccount(ctx.gw);
    const phone = uniquePhone();
    for (const res of [
      await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: national(phone) } }),
      await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: national(phone) } }),
    ]) {
      expectApiError(res, 400, 'INVALID_PHONE');
      expect(res.body.error.message).toMatch(/country code/);
      expect(res.body.error.message).toMatch(/defaultCountry/);
    }
    expect((await api(ctx.gw, account, 'POST', 'contacts', { body: { phone } })).status).toBe(201);

    // Cleared again: the account is back to numbers with their country code.
    const us = await accountIn('US');
    expect((await api(ctx.gw, us, 'POST', 'contacts', { body: { phone: national(uniquePhone()) } })).status).toBe(201);
    await setCountry(us, null);
    expectApiError(
      await api(ctx.gw, us, 'POST', 'contacts', { body: { phone: national(uniquePhone()) } }),
      400,
      'INVALID_PHONE',
    );
  });
});

describe('imports', () => {
  test('under US, CSV rows written "(415) 555-0100" import with their E.164 phones, and repeat the + form of a number', async () => {
    const account = await accountIn('US');
    const [a, b, c] = [uniquePhone(), uniquePhone(), uniquePhone()];
    const csv = [
      'Name,Phone',
      `Ann,${national(a)}`,
      `Bo,"${national(b)}"`,
      `Cy,${c}`,
      `Ann again,+1 ${a.slice(2)}`,
    ].join('\n');
    const { listId, done } = await imported(account, csv, { firstName: 'Name', phone: 'Phone' });
    expect(done).toMatchObject({
      total: 4,
      added: 3,
      duplicates: 1,
      rejected: 0,
      errors: [],
      warnings: 0,
      rowWarnings: [],
    });
    const contacts = await listMembers(account, listId);
    expect(Object.fromEntries(contacts.map((x) => [x.firstName, x.phone]))).toEqual({ Ann: a, Bo: b, Cy: c });
  });

  test('under DE, a phone a spreadsheet saved without its plus or its 0 (4915112345678) is never read as a German number it is not; the row says so', async () => {
    const account = await accountIn('DE');
    const csv = [
      'Name,Phone,Email', // row 1
      'Ann,4915112345678,ann@example.com', // 2: +4915112345678 or 04915112345678: kept by the email, without it
      'Bo,33612345678,', // 3: +33612345678 or 033612345678: nothing else to find Bo by
      'Cy,0151 12345679,', // 4: a German number as Germans write it
      'Di,15112345670,', // 5: its 0 lost, and no number of another country with a plus
      'Ed,+33 6 12 34 56 78,', // 6: written with its plus
    ].join('\r\n');
    const { listId, done } = await imported(account, csv, { firstName: 'Name', phone: 'Phone', email: 'Email' });
    const lost = (plus: string) =>
      new RegExp(
        `neither a plus nor a leading 0.*${plus.replace('+', '\\+')} with its plus lost.*default country \\(DE\\)`,
      );
    expect(done).toMatchObject({ total: 5, added: 4, rejected: 1, warnings: 1 });
    expect(done.errors).toEqual([
      { row: 3, code: 'INVALID_PHONE', message: expect.stringMatching(lost('+33612345678')) },
    ]);
    expect(done.rowWarnings).toEqual([
      expect.objectContaining({
        row: 2,
        field: 'phone',
        value: '4915112345678',
        message: expect.stringMatching(lost('+4915112345678')),
      }),
    ]);
    const contacts = await listMembers(account, listId);
    // Ann by her email alone.
    expect(Object.fromEntries(contacts.map((x) => [x.firstName, x.phone || x.email]))).toEqual({
      Ann: 'ann@example.com',
      Cy: '+4915112345679',
      Di: '+4915112345670',
      Ed: '+33612345678',
    });
    // POST /contacts reads a phone as an import row does.
    const res = await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: '4915112345678' } });
    expectApiError(res, 400, 'INVALID_PHONE');
    expect(res.body.error.message).toMatch(lost('+4915112345678'));
    // Under US, numbers are written without their 1: (475) 555-0123 is a US number, though +4755550123 is Norway's.
    const us = await accountIn('US');
    expect((await api(ctx.gw, us, 'POST', 'contacts', { body: { phone: '(475) 555-0123' } })).body.phone).toBe(
      '+14755550123',
    );
  });

  test('without a default country, rows with an email or external ID are imported without the phone as warnings; rows with nothing else are rejected', async () => {
    const account = await createAccount(ctx.gw);
    const [a, b, c, d] = [uniquePhone(), uniquePhone(), uniquePhone(), uniquePhone()];
    const csv = [
      'Name,Phone,Email,Visitor', // row 1
      `Ann,${national(a)},ann@example.com,`, // 2: warning
      `Bo,${national(b)},,v-bo`, // 3: warning
      `Cy,${national(c)},,`, // 4: rejected
      `Di,${d},di@example.com,`, // 5: added with its phone
      `Ed,call the front desk and ask for Ed at extension twelve,ed@example.com,`, // 6: warning (too long to be a phone)
      `Fay,not a phone,,`, // 7: rejected
    ].join('\n');
    const { listId, done } = await imported(account, csv, {
      firstName: 'Name',
      phone: 'Phone',
      email: 'Email',
      externalIds: { livechat: 'Visitor' },
    });
    expect(done).toMatchObject({ total: 6, processed: 6, added: 4, rejected: 2, warnings: 3 });
    expect(done.errors).toEqual([
      { row: 4, code: 'INVALID_PHONE', message: expect.stringMatching(/defaultCountry/) },
      { row: 7, code: 'INVALID_PHONE', message: expect.stringContaining('not a phone') },
    ]);
    expect(done.rowWarnings).toEqual([
      {
        row: 2,
        field: 'phone',
        code: 'INVALID_PHONE',
        message: expect.stringMatching(/defaultCountry/),
        value: national(a),
        contactId: expect.any(String),
      },
      {
        row: 3,
        field: 'phone',
        code: 'INVALID_PHONE',
        message: expect.stringContaining(national(b)),
        value: national(b),
        contactId: expect.any(String),
      },
      {
        row: 6,
        field: 'phone',
        code: 'INVALID_PHONE',
        message: expect.stringMatching(/^phone: /),
        value: 'call the front desk and ask for Ed at extension twelve',
        contactId: expect.any(String),
      },
    ]);
    const contacts = Object.fromEntries((await listMembers(account, listId)).map((x) => [x.firstName, x]));
    expect(Object.keys(contacts).sort()).toEqual(['Ann', 'Bo', 'Di', 'Ed']);
    expect(done.rowWarnings.map((w: any) => w.contactId)).toEqual([contacts.Ann.id, contacts.Bo.id, contacts.Ed.id]);
    expect(contacts.Ann).toMatchObject({ phone: '', email: 'ann@example.com' });
    expect(contacts.Bo).toMatchObject({ phone: '', externalIds: { livechat: 'v-bo' } });
    expect(contacts.Di).toMatchObject({ phone: d, email: 'di@example.com' });
    expect(contacts.Ed).toMatchObject({ phone: '', email: 'ed@example.com' });

    // The same file once the country is set: every national number is read; Bo, found by his visitor ID, gains his.
    await setCountry(account, 'US');
    const again = await imported(account, csv, {
      firstName: 'Name',
      phone: 'Phone',
      email: 'Email',
      externalIds: { livechat: 'Visitor' },
    });
    expect(again.done).toMatchObject({ added: 5, rejected: 1, warnings: 1 });
    expect(again.done.rowWarnings.map((w: any) => w.row)).toEqual([6]);
    expect((await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: c } })).body.firstName).toBe('Cy');
    expect((await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: national(b) } })).body).toMatchObject(
      { id: contacts.Bo.id, phone: b },
    );
  });

  test('contact objects: a phone that cannot be read is left out of a row with an email, as in a CSV', async () => {
    const account = await createAccount(ctx.gw);
    const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Objects' } })).body;
    const contacts = [
      { phone_number: '(555) 010-0199', email: 'one@example.com' }, // 1: warning
      { phone: 12345, email: 'two@example.com' }, // 2: warning (no text)
      { phone: '(555) 010-0198' }, // 3: rejected
      { phone: 'x', email: 'bad@' }, // 4: rejected, for its phone as before
    ];
    const res = await api(ctx.gw, account, 'POST', `lists/${list.id}/imports`, { body: { contacts } });
    const done = (
      await poll(
        () => api(ctx.gw, account, 'GET', `imports/${res.body.id}`),
        (r) => r.body.status === 'done',
        30_000,
      )
    ).body;
    expect(done).toMatchObject({ added: 2, rejected: 2, warnings: 2 });
    expect(done.rowWarnings.map((w: any) => [w.row, w.field, w.code])).toEqual([
      [1, 'phone', 'INVALID_PHONE'],
      [2, 'phone', 'INVALID_PHONE'],
    ]);
    expect(done.errors.map((e: any) => [e.row, e.code])).toEqual([
      [3, 'INVALID_PHONE'],
      [4, 'INVALID_PHONE'],
    ]);
  });

  test('every warning is counted; the first 1,000 are listed', async () => {
    const account = await createAccount(ctx.gw);
    const rows = Array.from(
      { length: 1002 },
      (_, i) => `5550${String(i).padStart(6, '0')},p${i}-${account.id}@example.com`,
    );
    const { done } = await imported(account, ['Phone,Email', ...rows].join('\n'), { phone: 'Phone', email: 'Email' });
    expect(done).toMatchObject({ total: 1002, added: 1002, rejected: 0, warnings: 1002 });
    expect(done.rowWarnings).toHaveLength(1000);
    expect(done.rowWarnings[999].row).toBe(1001);
  });

  test('the import answer is the shape the OpenAPI document gives it', async () => {
    const doc = (await api(ctx.gw, undefined, 'GET', 'openapi.json')).body;
    const answer = doc.paths['/imports/{id}'].get.responses['200'].content['application/json'].schema.$ref;
    expect(answer).toBe('#/components/schemas/Import');
    expect(doc.paths['/lists/{listId}/imports'].post.responses['202'].content['application/json'].schema.$ref).toBe(
      answer,
    );
    const schema = doc.components.schemas.Import;
    const account = await createAccount(ctx.gw);
    const { done } = await imported(account, 'Phone,Email\n(555) 010-0100,a@example.com', {
      phone: 'Phone',
      email: 'Email',
    });
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(done).sort());
    expect(schema.required.sort()).toEqual(Object.keys(done).sort());
    expect(Object.keys(schema.properties.rowWarnings.items.properties).sort()).toEqual(
      Object.keys(done.rowWarnings[0]).sort(),
    );
  });
});

describe('messages', () => {
  test("an incoming custom-channel message whose fromId is a national number lands on that phone's contact under US", async () => {
    const us = await accountIn('US');
    const none = await createAccount(ctx.gw);
    const phone = uniquePhone();
    const incoming = (account: TestAccount, sid: string) =>
      api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
        body: {
          customData: {
            messageSid: sid,
            fromId: national(phone),
            toId: 'clinic',
            channel: 'web',
            body: 'Can I move my appointment?',
          },
        },
      });

    const known = (await api(ctx.gw, us, 'POST', 'contacts', { body: { phone, firstName: 'Ann' } })).body;
    const res = await incoming(us, 'm-us');
    expect(res.status).toBe(200);
    expect((await api(ctx.gw, us, 'GET', `messages/${res.body.messageId}`)).body.contactId).toBe(known.id);
    expect((await api(ctx.gw, us, 'GET', `contacts/${known.id}`)).body.externalIds).toEqual({ web: national(phone) });

    // Without a default country the same fromId is no phone: it is a contact of its own, as before.
    const other = (await api(ctx.gw, none, 'POST', 'contacts', { body: { phone } })).body;
    const elsewhere = await incoming(none, 'm-none');
    expect(elsewhere.status).toBe(200);
    expect((await api(ctx.gw, none, 'GET', `messages/${elsewhere.body.messageId}`)).body.contactId).not.toBe(other.id);
  });

  test('an SMS written in from a national number under US is the contact of that phone, and a team reply goes to its E.164 form', async () => {
    const us = await accountIn('US');
    const phone = uniquePhone();
    const known = (await api(ctx.gw, us, 'POST', 'contacts', { body: { phone } })).body;
    const res = await api(ctx.gw, us, 'POST', 'channels/sms/incoming', {
      body: { phone: national(phone), body: 'Hello?' },
    });
    expect(res.status).toBe(200);
    const conversations = (await api(ctx.gw, us, 'GET', 'conversations')).body.data as any[];
    expect(conversations.map((c) => [c.contactId, c.channel])).toEqual([[known.id, 'sms']]);
    const reply = await api(ctx.gw, us, 'POST', `contacts/${known.id}/messages`, {
      body: { body: 'Yes, we are open.', conversationId: conversations[0].id },
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ channel: 'sms', toId: phone, contactId: known.id });

    const none = await createAccount(ctx.gw);
    expectApiError(
      await api(ctx.gw, none, 'POST', 'channels/sms/incoming', { body: { phone: national(phone), body: 'Hello?' } }),
      400,
      'INVALID_PHONE',
    );
  });

  test('a send to a national number reaches the contact of that phone under US', async () => {
    const hook = await Receiver.start();
    receivers.push(hook);
    const us = await accountIn('US');
    await api(ctx.gw, us, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
    const phone = uniquePhone();
    const known = (await api(ctx.gw, us, 'POST', 'contacts', { body: { phone, firstName: 'Ann' } })).body;
    const sent = await api(ctx.gw, us, 'POST', 'send_custom_channel_message', {
      body: {
        customData: { fromId: national(phone), customChannel: 'sms-bridge', body: 'Your appointment is at 3pm.' },
      },
    });
    expect(sent.status).toBe(200);
    const message = await settledMessage(ctx.gw, us, sent.body.messageId);
    expect(message).toMatchObject({ contactId: known.id, status: 'sent', toId: national(phone) });
    const [delivery] = await hook.waitFor(1);
    expect(delivery!.body).toMatchObject({ contactId: known.id, toId: national(phone), channel: 'sms-bridge' });
  });
});
