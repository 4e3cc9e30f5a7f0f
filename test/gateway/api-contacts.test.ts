import { api, createAccount, expectApiError, unique, uniquePhone, useGateway, type TestAccount } from './api-support';

/** Spec §4.1 (create a contact) and §4.2 (get contact details), with the contact extensions of the API. */
const ctx = useGateway();
let account: TestAccount;
beforeAll(async () => {
  account = await createAccount(ctx.gw);
});

const contactShape = {
  id: expect.any(String),
  firstName: expect.any(String),
  lastName: expect.any(String),
  phone: expect.any(String),
  email: expect.any(String),
  createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
};

describe('POST /v1/contacts', () => {
  test('camelCase fields → 201 with the contact', async () => {
    const phone = uniquePhone();
    const res = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { firstName: 'Ana', lastName: 'Silva', phone, email: 'Ana.Silva@Example.com' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject(contactShape);
    expect(res.body).toMatchObject({ firstName: 'Ana', lastName: 'Silva', phone, email: 'ana.silva@example.com' });
    const read = await api(ctx.gw, account, 'GET', `contacts/${res.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  test('snake_case fields (the funnel form) → 201 with the contact', async () => {
    const phone = uniquePhone();
    const res = await api(ctx.gw, account, 'POST', 'contacts', {
      keyIn: 'bearer',
      body: { first_name: 'Bruno', last_name: 'Costa', phone_number: phone, email: 'bruno@example.com' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      ...contactShape,
      firstName: 'Bruno',
      lastName: 'Costa',
      phone,
      email: 'bruno@example.com',
    });
  });

  test('phone is normalized to E.164', async () => {
    const res = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { phone: '+44 20 7946 0958', firstName: 'Uk' },
    });
    expect(res.status).toBe(201);
    expect(res.body.phone).toBe('+442079460958');
  });

  test('custom fields (either spelling) are stored and returned', async () => {
    const res = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { phone: uniquePhone(), custom_fields: { plan: 'gold', seats: 3, trial: false } },
    });
    expect(res.status).toBe(201);
    expect(res.body.customFields).toEqual({ plan: 'gold', seats: 3, trial: false });
    expect((await api(ctx.gw, account, 'GET', `contacts/${res.body.id}`)).body.customFields).toEqual({
      plan: 'gold',
      seats: 3,
      trial: false,
    });
    expectApiError(
      await api(ctx.gw, account, 'POST', 'contacts', {
        body: { phone: uniquePhone(), customFields: { nested: { no: 1 } } },
      }),
      400,
    );
  });

  test('neither phone nor email → 400', async () => {
    for (const body of [{}, { firstName: 'Nobody' }, { firstName: 'Nobody', phone: '' }, { phone: '', email: '' }]) {
      expectApiError(await api(ctx.gw, account, 'POST', 'contacts', { body }), 400);
    }
  });

  test.each([
    ['no leading +', '15550100199'],
    ['national format', '(555) 010-0199'],
    ['unknown country code', '+999 1234567'],
    ['country code 0', '+0123456789'],
    ['too short', '+1555123'],
    ['letters', '+1 555 CALL NOW'],
    ['extension', '+1 555 010 0199 ext. 12'],
  ])('phone with %s → 400 INVALID_PHONE', async (_what, phone) => {
    expectApiError(
      await api(ctx.gw, account, 'POST', 'contacts', { body: { phone, firstName: 'X' } }),
      400,
      'INVALID_PHONE',
    );
    expectApiError(
      await api(ctx.gw, account, 'POST', 'contacts', { body: { phone_number: phone } }),
      400,
      'INVALID_PHONE',
    );
  });

  test.each(['not-an-email', 'a@b', 'two@@example.com', 'spaces in@example.com', '@example.com'])(
    'email %p → 400 INVALID_EMAIL',
    async (email) => {
      expectApiError(await api(ctx.gw, account, 'POST', 'contacts', { body: { email } }), 400, 'INVALID_EMAIL');
      expectApiError(
        await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone(), email } }),
        400,
        'INVALID_EMAIL',
      );
    },
  );

  test('a bad phone and a bad email → one 400 naming both in error.fields, with the code of the phone as before', async () => {
    const res = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { firstName: 'Both', phone: '555-0100', email: 'ana@' },
    });
    expectApiError(res, 400, 'INVALID_PHONE');
    expect(res.body.error.fields).toEqual([
      { field: 'phone', code: 'INVALID_PHONE', message: expect.stringContaining('"555-0100"') },
      { field: 'email', code: 'INVALID_EMAIL', message: '"ana@" is not an email address' },
    ]);
    expect(res.body.error.message).toMatch(/^phone: "555-0100" .*; email: "ana@" is not an email address$/);
    const lookup = await api(ctx.gw, account, 'GET', 'contacts', { query: { q: 'Both' } });
    expect(lookup.body.data).toEqual([]);
  });

  test("a custom field's or a channel's name the API cannot take → 400 saying what is wrong with the name; nothing is stored", async () => {
    const long = 'k'.repeat(101);
    const phone = uniquePhone();
    for (const [body, problem] of [
      [
        { phone, customFields: { [long]: 'gold' } },
        {
          field: `customFields.${long}`,
          code: 'TOO_LONG',
          message: 'its name must be at most 100 characters',
          limit: 100,
        },
      ],
      [
        { phone, externalIds: { '': 'visitor-1' } },
        { field: 'externalIds.', code: 'REQUIRED', message: 'a custom channel label must not be empty' },
      ],
    ] as const) {
      const res = await api(ctx.gw, account, 'POST', 'contacts', { body });
      expectApiError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.fields).toEqual([problem]);
      expect(res.body.error.message).toBe(`${problem.field}: ${problem.message}`);
    }
    expectApiError(await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } }), 404);
  });

  test('a custom field without a name → 400 REQUIRED naming it; a correction may still remove one stored so', async () => {
    const phone = uniquePhone();
    for (const name of ['', '   ']) {
      const res = await api(ctx.gw, account, 'POST', 'contacts', { body: { phone, customFields: { [name]: 'gold' } } });
      expectApiError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.fields).toEqual([
        { field: `customFields.${name}`, code: 'REQUIRED', message: 'a custom field needs a name' },
      ]);
    }
    expectApiError(await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } }), 404);
    const c = (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone, customFields: { plan: 'gold' } } }))
      .body;
    expectApiError(
      await api(ctx.gw, account, 'PATCH', `contacts/${c.id}`, { body: { customFields: { '': 'x' } } }),
      400,
      'VALIDATION_ERROR',
    );
    const removed = await api(ctx.gw, account, 'PATCH', `contacts/${c.id}`, { body: { customFields: { '': null } } });
    expect({ status: removed.status, customFields: removed.body.customFields }).toEqual({
      status: 200,
      customFields: { plan: 'gold' },
    });
  });

  test('a rejected contact is not stored', async () => {
    const phone = uniquePhone();
    expectApiError(
      await api(ctx.gw, account, 'POST', 'contacts', { body: { phone, email: 'broken@' } }),
      400,
      'INVALID_EMAIL',
    );
    expectApiError(
      await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } }),
      404,
      'CONTACT_NOT_FOUND',
    );
  });

  test('an existing phone in another format → 200 with the existing contact, unchanged', async () => {
    const first = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { phone: '+15550100199', firstName: 'Carla', email: 'carla@example.com' },
    });
    expect(first.status).toBe(201);
    for (const phone of ['+1 (555) 010-0199', '+1-555-010-0199', '+1.555.010.0199', ' +15550100199 ']) {
      const again = await api(ctx.gw, account, 'POST', 'contacts', {
        body: { phone, firstName: 'Other', email: 'other@example.com' },
      });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
    }
    const snake = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { phone_number: '+1 (555) 010-0199', first_name: 'Snake' },
    });
    expect(snake.status).toBe(200);
    expect(snake.body).toEqual(first.body);
  });

  test('20 concurrent creates of the same phone (mixed formats) → exactly one contact', async () => {
    const phone = uniquePhone();
    const pretty = `+1 (${phone.slice(2, 5)}) ${phone.slice(5, 8)}-${phone.slice(8)}`;
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api(ctx.gw, account, 'POST', 'contacts', { body: { phone: i % 2 ? pretty : phone, firstName: `Racer ${i}` } }),
      ),
    );
    const statuses = replies.map((r) => r.status).sort((a, b) => a - b);
    expect(statuses).toEqual([...Array(19).fill(200), 201]);
    const ids = new Set(replies.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    const found = await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: pretty } });
    expect(found.body.id).toBe([...ids][0]);
  });

  test('email-only contact: an existing email → 200 with the existing contact', async () => {
    const email = `${unique('only')}@example.com`;
    const first = await api(ctx.gw, account, 'POST', 'contacts', { body: { email, firstName: 'Dora' } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ email, phone: '', firstName: 'Dora' });
    const again = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { email: email.toUpperCase(), firstName: 'Eve' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
  });

  test('concurrent email-only creates → one contact', async () => {
    const email = `${unique('race')}@example.com`;
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => api(ctx.gw, account, 'POST', 'contacts', { body: { email } })),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    expect(replies.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
  });
});

describe('GET /v1/contacts', () => {
  let contact: any;
  const email = `${unique('lookup')}@example.com`;
  beforeAll(async () => {
    contact = (
      await api(ctx.gw, account, 'POST', 'contacts', {
        body: { phone: '+14155550123', email, firstName: 'Finn', lastName: 'Lee' },
      })
    ).body;
  });

  test('by phoneNumber (normalized the same way) → 200 with the contact', async () => {
    for (const phoneNumber of ['+14155550123', '+1 (415) 555-0123', '+1 415 555 0123']) {
      const res = await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(contact);
    }
  });

  test('by email (any case) → 200 with the contact', async () => {
    for (const e of [email, email.toUpperCase()]) {
      const res = await api(ctx.gw, account, 'GET', 'contacts', { query: { email: e } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(contact);
    }
  });

  test('none found → 404 CONTACT_NOT_FOUND', async () => {
    expectApiError(
      await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: '+14155550199' } }),
      404,
      'CONTACT_NOT_FOUND',
    );
    expectApiError(
      await api(ctx.gw, account, 'GET', 'contacts', { query: { email: 'nobody@example.com' } }),
      404,
      'CONTACT_NOT_FOUND',
    );
  });

  test('not exactly one of phoneNumber and email → 400', async () => {
    expectApiError(await api(ctx.gw, account, 'GET', 'contacts'), 400);
    expectApiError(
      await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: '+14155550123', email } }),
      400,
    );
    expectApiError(await api(ctx.gw, account, 'GET', 'contacts', { query: { phone: '+14155550123' } }), 400);
  });

  test('repeated query parameter → 400, not 500', async () => {
    const res = await api(ctx.gw, account, 'GET', '/v1/contacts?phoneNumber=%2B14155550123&phoneNumber=%2B14155550124');
    expectApiError(res, 400);
  });

  test('invalid phone or email in the query → 400 INVALID_PHONE / INVALID_EMAIL', async () => {
    expectApiError(
      await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: '4155550123' } }),
      400,
      'INVALID_PHONE',
    );
    expectApiError(await api(ctx.gw, account, 'GET', 'contacts', { query: { email: 'nope' } }), 400, 'INVALID_EMAIL');
  });

  test('an unencoded "+" in the query (as typed in a URL) still finds the contact', async () => {
    const res = await api(ctx.gw, account, 'GET', '/v1/contacts?phoneNumber=+14155550123');
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(contact.id);
  });

  test('an unencoded "+" in an email of the query (a tagged address typed in a URL) still finds the contact', async () => {
    const tagged = (
      await api(ctx.gw, account, 'POST', 'contacts', { body: { email: `${unique('ana')}+leads@example.com` } })
    ).body;
    const res = await api(ctx.gw, account, 'GET', `/v1/contacts?email=${tagged.email}`);
    expect({ status: res.status, id: res.body.id }).toEqual({ status: 200, id: tagged.id });
  });
});

describe('GET /v1/contacts/{id}', () => {
  test('unknown id → 404 CONTACT_NOT_FOUND', async () => {
    expectApiError(await api(ctx.gw, account, 'GET', 'contacts/ct_does_not_exist'), 404, 'CONTACT_NOT_FOUND');
    expectApiError(await api(ctx.gw, account, 'GET', 'contacts/ct_does_not_exist/messages'), 404, 'CONTACT_NOT_FOUND');
  });

  test("a new contact's messages are an empty list", async () => {
    const c = await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone() } });
    const res = await api(ctx.gw, account, 'GET', `contacts/${c.body.id}/messages`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], nextCursor: null });
  });
});
