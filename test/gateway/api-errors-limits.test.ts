import https from 'node:https';
import {
  api,
  createAccount,
  expectApiError,
  expectNoStack,
  expectPlainError,
  incoming,
  request,
  uniquePhone,
  useGateway,
  type TestAccount,
} from './api-support';

/** Spec §7 (errors) and §8 (limits): error shapes, body handling, unknown routes, methods, rate limit. */
const ctx = useGateway();
let account: TestAccount;
let agency: TestAccount;
beforeAll(async () => {
  account = await createAccount(ctx.gw);
  agency = await createAccount(ctx.gw, { type: 'agency' });
});

const jsonRoutes: Array<[string, string]> = [
  ['POST', 'contacts'],
  ['POST', 'lists'],
  ['POST', 'lists/lst_x/contacts'],
  ['POST', 'campaigns'],
  ['PATCH', 'campaigns/cmp_x'],
  ['POST', 'send_custom_channel_message'],
  ['PUT', 'settings'],
  ['POST', 'webhooks'],
];

describe('request bodies', () => {
  test.each(jsonRoutes)('%s /v1/%s: malformed JSON → 400 INVALID_JSON', async (method, path) => {
    for (const body of [
      '{"phone": ',
      '{phone: "+1555"}',
      "{'a':1}",
      '{"a":1,}',
      'undefined',
      '"just a string"',
      'null',
      '42',
    ]) {
      const res = await api(ctx.gw, account, method, path, { body });
      expectApiError(res, 400, 'INVALID_JSON');
      // JSON that is no object is said to be so, not called invalid.
      const valid = ['"just a string"', 'null', '42'].includes(body);
      expect(res.body.error.message).toBe(
        valid ? 'Request body must be a JSON object' : 'Request body is not valid JSON',
      );
    }
  });

  test('credit grant and incoming endpoint: malformed JSON → 400 in their shapes', async () => {
    expectApiError(
      await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: '{"email":' }),
      400,
      'INVALID_JSON',
    );
    expectPlainError(
      await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', { body: '{"customData":' }),
      400,
    );
  });

  test.each(jsonRoutes.filter(([m]) => m !== 'PATCH'))('%s /v1/%s: a JSON array → 400', async (method, path) => {
    expectApiError(await api(ctx.gw, account, method, path, { body: [{ name: 'x', phone: '+15550100199' }] }), 400);
  });

  test('wrong types → 400 naming the field', async () => {
    const cases: Array<[string, string, unknown, RegExp]> = [
      ['POST', 'contacts', { phone: 15550100199 }, /phone/],
      ['POST', 'contacts', { phone: '+15550100199', firstName: { first: 'A' } }, /firstName/],
      ['POST', 'contacts', { email: ['a@example.com'] }, /email/],
      ['POST', 'contacts', { phone: '+15550100199', customFields: 'x' }, /customFields/],
      ['POST', 'lists', { name: ['x'] }, /name/],
      ['POST', 'campaigns', { name: 'x', followUps: 'often' }, /followUps/],
      ['PUT', 'settings', { customChannelWebhookUrl: { url: 'https://x.example.com' } }, /customChannelWebhookUrl/],
      ['POST', 'send_custom_channel_message', { customData: 'hi' }, /customData/],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await api(ctx.gw, account, method, path, { body });
      expectApiError(res, 400);
      expect(res.body.error.message).toMatch(field);
    }
  });

  test('a field written twice in one object → 400 naming it, nothing stored; keys alike in other objects or in text are fine', async () => {
    const [first, second] = [uniquePhone(), uniquePhone()];
    const twice = await api(ctx.gw, account, 'POST', 'contacts', {
      body: `{"firstName":"Ann","phone":"${first}","phone":"${second}"}`,
    });
    expectApiError(twice, 400, 'VALIDATION_ERROR');
    expect(twice.body.error.fields).toEqual([
      { field: 'phone', code: 'INVALID', message: 'is given twice; give each field once' },
    ]);
    for (const phone of [first, second])
      expectApiError(await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } }), 404);

    const nested = await api(ctx.gw, account, 'POST', 'campaigns', {
      body: '{"name":"Twice","bot":{"faqs":[{"question":"a","answer":"b"},{"question":"c","answer":"d","answer":"e"}]}}',
    });
    expectApiError(nested, 400, 'VALIDATION_ERROR');
    expect(nested.body.error.message).toBe('bot.faqs.1.answer: is given twice; give each field once');

    // The same key once written with an escape: JSON reads both as one.
    const escaped = await api(ctx.gw, account, 'POST', 'contacts', {
      body: `{"firstName":"Ann","phone":"${first}","\\u0070hone":"${second}"}`,
    });
    expect(escaped.body.error.message).toBe('phone: is given twice; give each field once');

    const plain = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
      body: '{"customData":{"messageSid":"twice-1","fromId":"u-twice","toId":"b","body":"yes","body":"no"}}',
    });
    expectPlainError(plain, 400);
    expect(plain.body.error).toBe('customData.body: is given twice; give each field once');

    // A key may come again in another object, and a value may read like a key (an escaped quote, a colon).
    const alike = await api(ctx.gw, account, 'POST', 'contacts', {
      body: `{"firstName":"A \\":\\"phone\\":","phone":"${first}","customFields":{"phone":"x"}}`,
    });
    expect(alike.status).toBe(201);
    expect(alike.body.phone).toBe(first);
  });

  test('a large body of many short strings is read for keys written twice in one pass, and answered', async () => {
    const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Short strings' } })).body;
    // 8 MB, within an import's limit, and not one key among the strings: each looked for again after every string,
    // the key count took minutes.
    const body = `{"contacts":1,"strings":[${'"x",'.repeat(2_000_000)}"x"]}`;
    const refused = await api(ctx.gw, account, 'POST', `lists/${list.id}/imports`, { body });
    expectApiError(refused, 400, 'VALIDATION_ERROR');
  });

  test('a body in another media type → 415', async () => {
    for (const contentType of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
    ]) {
      const res = await api(ctx.gw, account, 'POST', 'contacts', {
        body: '{"phone":"+15550100199"}',
        headers: { 'content-type': contentType },
      });
      expectApiError(res, 415);
    }
    const plain = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
      body: JSON.stringify(incoming()),
      headers: { 'content-type': 'text/plain' },
    });
    expectPlainError(plain, 415);
  });

  test('JSON with a +json suffix type or a charset is accepted', async () => {
    expect(
      (
        await api(ctx.gw, account, 'POST', 'contacts', {
          body: { phone: uniquePhone() },
          headers: { 'content-type': 'application/json; charset=utf-8' },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api(ctx.gw, account, 'POST', 'contacts', {
          body: { phone: uniquePhone() },
          headers: { 'content-type': 'application/merge-patch+json' },
        })
      ).status,
    ).toBe(201);
  });

  test('UTF-8 under its other labels ("utf8", as some clients write it) is UTF-8, on the incoming endpoint too', async () => {
    for (const charset of ['utf8', 'UTF8', '"utf8"', 'unicode-1-1-utf-8']) {
      const headers = { 'content-type': `application/json; charset=${charset}` };
      const created = await api(ctx.gw, account, 'POST', 'contacts', {
        body: { phone: uniquePhone(), firstName: 'Zoë' },
        headers,
      });
      expect({ charset, status: created.status, firstName: created.body.firstName }).toEqual({
        charset,
        status: 201,
        firstName: 'Zoë',
      });
      const received = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
        body: incoming({ body: 'Olá' }),
        headers,
      });
      expect({ charset, status: received.status }).toEqual({ charset, status: 200 });
    }
  });

  test('a non-UTF charset → 415', async () => {
    for (const charset of ['latin1', 'iso-8859-1', 'windows-1252']) {
      expectApiError(
        await api(ctx.gw, account, 'POST', 'contacts', {
          body: { phone: uniquePhone() },
          headers: { 'content-type': `application/json; charset=${charset}` },
        }),
        415,
      );
    }
  });

  test('bytes that are not UTF-8 → 400 INVALID_ENCODING in the shape of the route, nothing stored', async () => {
    // A stray Latin-1 byte, a lone continuation byte, an overlong "/", a cut sequence, an encoded surrogate.
    for (const bad of ['ff', '80', 'c0af', 'e282', 'eda080']) {
      const phone = uniquePhone();
      const body = Buffer.concat([
        Buffer.from(`{"phone":"${phone}","firstName":"A`),
        Buffer.from(bad, 'hex'),
        Buffer.from('"}'),
      ]);
      expectApiError(await api(ctx.gw, account, 'POST', 'contacts', { body }), 400, 'INVALID_ENCODING');
      expectApiError(await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } }), 404);
    }
    const text = JSON.stringify(incoming({ body: 'caf<>' })).split('<>');
    const plain = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
      body: Buffer.concat([Buffer.from(text[0]!), Buffer.from([0xe9]), Buffer.from(text[1]!)]),
    });
    expectPlainError(plain, 400);
    expect(plain.body.error).toMatch(/UTF-8/);
    expectApiError(
      await api(ctx.gw, agency, 'POST', 'subaccounts/credits', {
        body: Buffer.from('{"email":"a\xff@example.com","amount":1}', 'latin1'),
      }),
      400,
      'INVALID_ENCODING',
    );
  });

  test('UTF-8 is read whole: multi-byte characters, with or without a charset', async () => {
    for (const charset of ['; charset=utf-8', '; charset=UTF-8', '']) {
      const res = await api(ctx.gw, account, 'POST', 'contacts', {
        body: Buffer.from(JSON.stringify({ phone: uniquePhone(), firstName: 'Zoë 李 🙂' }), 'utf8'),
        headers: { 'content-type': `application/json${charset}` },
      });
      expect({ charset, status: res.status, firstName: res.body.firstName }).toEqual({
        charset,
        status: 201,
        firstName: 'Zoë 李 🙂',
      });
    }
  });

  test('JSON in another UTF (UTF-16, UTF-32) → 415, nothing stored: JSON travels as UTF-8', async () => {
    const phone = uniquePhone();
    const res = await api(ctx.gw, account, 'POST', 'contacts', {
      body: Buffer.from(JSON.stringify({ phone }), 'utf16le'),
      headers: { 'content-type': 'application/json; charset=utf-16le' },
    });
    expectApiError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectApiError(await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } }), 404);
  });

  test('a body over the limit (~100 kB) → 413 on normal routes', async () => {
    const big = {
      phone: uniquePhone(),
      firstName: 'Big',
      customFields: { note: 'x'.repeat(2000) },
      padding: 'y'.repeat(150_000),
    };
    expectApiError(await api(ctx.gw, account, 'POST', 'contacts', { body: big }), 413);
    expectApiError(await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'x', pad: 'z'.repeat(120_000) } }), 413);
    expectApiError(
      await api(ctx.gw, account, 'POST', 'send_custom_channel_message', {
        body: { customData: { fromId: 'f', customChannel: 'c', body: 'b'.repeat(120_000) } },
      }),
      413,
    );
    // Nothing was stored.
    expectApiError(await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: big.phone } }), 404);
  });

  test('a body just under the limit is read', async () => {
    const res = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { phone: uniquePhone(), pad: 'p'.repeat(90_000) },
    });
    expect(res.status).toBe(201);
  });
});

describe('a 400 names every problem at once', () => {
  test('two bad fields: both in the message, and each in `fields` with its path, code and limit', async () => {
    const faqs = [...Array(4)].map((_, i) => ({ question: `Q${i}?`, answer: 'A.' }));
    faqs.push({ question: 'Open on Sunday?', answer: 'x'.repeat(5001) });
    const res = await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: ' ', bot: { faqs } } });
    expectApiError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.message).toBe(
      'name: must not be empty or whitespace; bot.faqs.4.answer: must be at most 5000 characters',
    );
    expect(res.body.error.fields).toEqual([
      { field: 'name', code: 'REQUIRED', message: 'must not be empty or whitespace' },
      { field: 'bot.faqs.4.answer', code: 'TOO_LONG', message: 'must be at most 5000 characters', limit: 5000 },
    ]);
  });

  test('a missing field is REQUIRED, a list or an object of too many entries TOO_MANY; the plain incoming endpoint keeps its string', async () => {
    const res = await api(ctx.gw, account, 'POST', 'campaigns', {
      body: {
        name: 'C',
        followUps: { steps: [...Array(6)].map(() => ({ after: '1d', body: 'x' })) },
        bot: { faqs: [{ answer: 'A' }] },
      },
    });
    expectApiError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.fields).toEqual([
      expect.objectContaining({ field: 'followUps.steps', code: 'TOO_MANY', limit: 5 }),
      expect.objectContaining({ field: 'bot.faqs.0.question', code: 'REQUIRED' }),
    ]);
    // An object of too many entries is a list too long too: a contact's custom fields and external IDs.
    const many = (n: number, prefix: string) => Object.fromEntries([...Array(n)].map((_, i) => [`${prefix}${i}`, 'x']));
    const crowded = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { phone: '+14155550100', customFields: many(51, 'f'), externalIds: many(21, 'l') },
    });
    expectApiError(crowded, 400, 'VALIDATION_ERROR');
    expect(crowded.body.error.fields).toEqual([
      { field: 'customFields', code: 'TOO_MANY', limit: 50, message: 'at most 50 custom fields' },
      { field: 'externalIds', code: 'TOO_MANY', limit: 20, message: 'at most 20 external IDs' },
    ]);
    // Checks the schema words no message for speak the API's words, not the validator's.
    const worded = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { phone: 5, email: `${'a'.repeat(320)}@x.com`, customFields: { plan: { tier: 'gold' } } },
    });
    expect(worded.body.error.fields).toEqual([
      { field: 'phone', code: 'INVALID', message: 'must be a string' },
      { field: 'email', code: 'TOO_LONG', limit: 320, message: 'must be at most 320 characters' },
      { field: 'customFields.plan', code: 'INVALID', message: 'must be a string, a number, true or false, or null' },
    ]);
    // A field either of two spellings gives, left out, is REQUIRED as any field is.
    const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'L' } })).body;
    expect((await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: {} })).body.error.fields).toEqual([
      { field: 'contactId', code: 'REQUIRED', message: 'is required' },
    ]);
    // A field in both spellings with two values is refused: which was meant cannot be told. The same value is fine.
    const phone = '+14155550111';
    const twice = await api(ctx.gw, account, 'POST', 'contacts', { body: { phone, phone_number: '+14155550112' } });
    expect(twice.body.error.fields).toEqual([
      { field: 'phone_number', code: 'INVALID', message: 'differs from phone: give one of the two' },
    ]);
    expect((await api(ctx.gw, account, 'POST', 'contacts', { body: { phone, phone_number: phone } })).status).toBe(201);
    const both = { contactId: 'ct_a', contact_id: 'ct_b' };
    const added = await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: both });
    expect(added.body.error.fields).toEqual([
      { field: 'contact_id', code: 'INVALID', message: 'differs from contactId: give one of the two' },
    ]);
    // A form's empty input is REQUIRED, whatever check it failed (here a URL's and a non-blank text's).
    const blank = await api(ctx.gw, account, 'PUT', 'settings/bot', {
      body: { provider: 'openai', openai: { baseUrl: '', model: ' ' } },
    });
    expectApiError(blank, 400, 'VALIDATION_ERROR');
    expect(blank.body.error.fields.map((f: { field: string; code: string }) => [f.field, f.code])).toEqual([
      ['openai.baseUrl', 'REQUIRED'],
      ['openai.model', 'REQUIRED'],
    ]);
    const plain = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
      body: incoming({ fromId: '', toId: '' }),
    });
    expectPlainError(plain, 400);
    expect(plain.body.error).toMatch(/^customData\.fromId: .*; customData\.toId: /);
  });

  test('at most 10 problems, and how many more there were', async () => {
    const faqs = [...Array(12)].map(() => ({ question: '', answer: 'A.' }));
    const res = await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'C', bot: { faqs } } });
    expectApiError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.fields).toHaveLength(10);
    expect(res.body.error.message.split('; ')).toHaveLength(11);
    expect(res.body.error.message).toMatch(/^bot\.faqs\.0\.question: .*; and 2 more problems$/);
  });

  test("the campaign rules beyond the schema: every refused field at once, with the first one's code", async () => {
    const body = { name: 'C', sendRate: 'fast', followUps: { steps: [{ after: 'soon', body: 'Hi {{frist_name}}' }] } };
    const res = await api(ctx.gw, account, 'POST', 'campaigns', { body });
    expectApiError(res, 400, 'INVALID_RATE');
    expect(res.body.error.fields.map((f: { field: string; code: string }) => [f.field, f.code])).toEqual([
      ['sendRate', 'INVALID_RATE'],
      ['followUps.steps.0.after', 'INVALID_DURATION'],
      ['followUps.steps.0.body', 'UNKNOWN_TEMPLATE_FIELD'],
    ]);
    expect(res.body.error.message).toMatch(
      /^sendRate must be a rate .*; followUps\.steps\.0\.after must be a duration .*; followUps\.steps\.0\.body uses unknown field \{\{frist_name\}\}/,
    );

    const live = await api(ctx.gw, account, 'POST', 'campaigns', {
      body: { name: 'C', status: 'live', channel: 'custom' },
    });
    expectApiError(live, 400, 'CAMPAIGN_CANNOT_SEND');
    expect(live.body.error.message).toBe(
      'The campaign cannot go Live: link it to a list (listId); give it an openingMessage; name its custom channel (customChannel)',
    );
    expect(live.body.error.fields).toEqual(
      ['listId', 'openingMessage', 'customChannel'].map((field) => ({
        field,
        code: 'CAMPAIGN_CANNOT_SEND',
        message: 'is required to go Live',
      })),
    );
  });
});

describe('query parameters take one value each', () => {
  let listId: string;
  let campaignId: string;
  let contactId: string;
  beforeAll(async () => {
    listId = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Queried' } })).body.id;
    campaignId = (
      await api(ctx.gw, account, 'POST', 'campaigns', {
        body: { name: 'Queried', channel: 'sms', openingMessage: 'Hi' },
      })
    ).body.id;
    contactId = (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone() } })).body.id;
  });

  test('a parameter an endpoint that names all it takes does not know → 400 naming that parameter', async () => {
    const res = await api(ctx.gw, account, 'GET', `campaigns/${campaignId}/unreachable?reasn=opted_out&limit=5&x=1`);
    expectApiError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'reasn: is not a parameter of this endpoint; x: is not a parameter of this endpoint',
      fields: [
        { field: 'reasn', code: 'INVALID', message: 'is not a parameter of this endpoint' },
        { field: 'x', code: 'INVALID', message: 'is not a parameter of this endpoint' },
      ],
    });
  });

  /** One parameter in each form that is not a single value: an array, an object, given twice. */
  const forms = (name: string, value: string) => [
    `${name}[]=${value}`,
    `${name}[0]=${value}`,
    `${name}[x]=${value}`,
    `${name}=${value}&${name}=${value}`,
  ];

  test('on every endpoint that takes a query → 400 VALIDATION_ERROR naming the parameter', async () => {
    const cases: Array<[string, string, string]> = [
      ['/v1/lists', 'limit', '1'],
      ['/v1/lists', 'cursor', 'x'],
      [`/v1/lists/${listId}/contacts`, 'limit', '1'],
      [`/v1/lists/${listId}/imports`, 'limit', '1'],
      ['/v1/campaigns', 'limit', '1'],
      ['/v1/webhooks', 'cursor', 'x'],
      [`/v1/contacts/${contactId}/messages`, 'limit', '1'],
      ['/v1/conversations', 'status', 'active'],
      ['/v1/conversations', 'channel', 'sms'],
      ['/v1/conversations', 'campaignId', campaignId],
      ['/v1/contacts', 'phoneNumber', '%2B15550100199'],
      ['/v1/contacts', 'email', 'a%40example.com'],
      [`/v1/campaigns/${campaignId}/preview`, 'contactId', contactId],
      [`/v1/campaigns/${campaignId}/funnel`, 'timezone', 'UTC'],
      ['/v1/subaccounts', 'limit', '1'],
    ];
    for (const [path, name, value] of cases) {
      for (const query of forms(name, value)) {
        const res = await api(ctx.gw, path === '/v1/subaccounts' ? agency : account, 'GET', `${path}?${query}`);
        expect({ query, status: res.status, code: res.body.error?.code }).toEqual({
          query,
          status: 400,
          code: 'VALIDATION_ERROR',
        });
        expect(res.body.error.message).toMatch(new RegExp(`^${name}: `));
      }
    }
  });

  test('the operator endpoints too: an email filter given as an array lists no account', async () => {
    const admin = { authorization: `Bearer ${ctx.gw.adminToken}` };
    for (const query of [...forms('email', encodeURIComponent(account.email)), ...forms('status', 'dead')]) {
      const res = await request(
        ctx.gw,
        'GET',
        `/admin/v1/${query.startsWith('email') ? 'accounts' : 'jobs'}?${query}`,
        { headers: admin },
      );
      expectApiError(res, 400, 'VALIDATION_ERROR');
    }
  });

  test('the API key given twice or as an array → 400 naming apiKey, not the key; plain on the incoming endpoint', async () => {
    const key = encodeURIComponent(account.apiKey);
    for (const query of forms('apiKey', key)) {
      const res = await request(ctx.gw, 'GET', `/v1/lists?${query}`);
      expectApiError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.message).toMatch(/^apiKey: /);
      expect(res.text).not.toContain(account.apiKey);
      const plain = await request(ctx.gw, 'POST', `/v1/incoming_custom_channel_message?${query}`, { body: incoming() });
      expectPlainError(plain, 400);
      expect(plain.body.error).toMatch(/^apiKey: /);
    }
    // Given once, it still works.
    expect((await request(ctx.gw, 'GET', `/v1/lists?apiKey=${key}&limit=1`)).status).toBe(200);
  });
});

describe('routes and methods', () => {
  test('unknown routes → 404 NOT_FOUND, with or without a key', async () => {
    for (const path of ['/v1/nope', '/v1/contacts/ct_1/unknown', '/v2/contacts', '/', '/admin', '/v1']) {
      expectApiError(await request(ctx.gw, 'GET', path), 404, 'NOT_FOUND');
      expectApiError(await api(ctx.gw, account, 'POST', path, { body: {} }), 404, 'NOT_FOUND');
    }
  });

  test.each<[string, string, string[]]>([
    ['DELETE', '/v1/contacts', ['GET', 'POST']],
    ['PUT', '/v1/contacts', ['GET', 'POST']],
    ['POST', '/v1/contacts/ct_1', ['GET']],
    ['PUT', '/v1/lists', ['GET', 'POST']],
    ['DELETE', '/v1/lists/lst_1/contacts', ['GET', 'POST']],
    ['DELETE', '/v1/campaigns/cmp_1', ['GET', 'PATCH']],
    ['GET', '/v1/send_custom_channel_message', ['POST']],
    ['GET', '/v1/subaccounts/credits', ['POST']],
    ['POST', '/v1/credits', ['GET']],
    ['PATCH', '/v1/settings', ['GET', 'PUT']],
    ['GET', '/v1/api-key', ['POST']],
    ['PUT', '/v1/webhooks/whk_1', ['DELETE', 'GET']],
    ['DELETE', '/v1/messages/msg_1', ['GET']],
    ['GET', '/admin/v1/accounts/acc_1/api-key', ['POST']],
  ])('%s %s → 405 with Allow', async (method, path, allowed) => {
    for (const who of [account, undefined]) {
      const res = await api(ctx.gw, who, method, path);
      expectApiError(res, 405, 'METHOD_NOT_ALLOWED');
      const allow = String(res.headers.allow).split(/,\s*/);
      for (const m of allowed) expect(allow).toContain(m);
      expect(allow).not.toContain(method);
    }
  });
  test('a path whose %-escapes are broken or are not UTF-8 → 400 MALFORMED_PATH, with or without a key, on the console too', async () => {
    for (const path of ['/v1/contacts/%E0%A4%A', '/v1/contacts/%FF', '/v1/lists/%C3/contacts', '/v1/nope/%ZZ']) {
      for (const who of [account, undefined]) {
        const res = await api(ctx.gw, who, 'GET', path);
        expectApiError(res, 400, 'MALFORMED_PATH');
        expect(res.body.error.message).toMatch(/^The path is not valid: /);
      }
    }
    expectApiError(await request(ctx.gw, 'GET', '/console/%E0%A4%A'), 400, 'MALFORMED_PATH');
    // An escape that decodes to UTF-8 is an ordinary path: the contact it names does not exist.
    expectApiError(await api(ctx.gw, account, 'GET', '/v1/contacts/%C3%A9'), 404, 'CONTACT_NOT_FOUND');
  });

  test('a refusal given before the body is read reaches a client still writing it (no broken pipe)', async () => {
    const cases: Array<[string, Record<string, string>, number]> = [
      ['/v1/nope', { 'x-api-key': account.apiKey, 'content-type': 'application/json' }, 404],
      ['/v1/contacts', { 'content-type': 'application/json' }, 401],
      ['/v1/contacts', { 'x-api-key': account.apiKey, 'content-type': 'text/csv' }, 415],
    ];
    for (const [path, headers, status] of cases) {
      for (let i = 0; i < 3; i++) expect(await slowlyWritten(path, headers)).toBe(status);
    }
  });

  // A 405 is thrown before any await, so its answer is written while the request event is still being emitted.
  test('every answer carries nosniff and HSTS, including those written at once', async () => {
    const answers = [
      await api(ctx.gw, account, 'GET', '/v1/lists'),
      await api(ctx.gw, account, 'DELETE', '/v1/contacts'),
      await request(ctx.gw, 'GET', '/v1/nope'),
      await request(ctx.gw, 'GET', '/v1/contacts'),
    ];
    expect(answers.map((res) => res.status)).toEqual([200, 405, 404, 401]);
    for (const res of answers) {
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
    }
  });
});

describe('never a 500 or a stack trace for bad input', () => {
  const hostile: unknown[] = [
    { __proto__: { admin: true }, phone: '+15550100199' },
    JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"x": 1}}, "email": "p@example.com"}'),
    { phone: '\u0000+1555\u0000' },
    { phone: '+'.repeat(39) },
    { email: `${'a'.repeat(400)}@example.com` },
    { firstName: '\ud800', phone: '+15550100198' },
    { phone: '+1 555 010 0199'.repeat(10) },
    { name: 'x', listId: { $ne: null } },
    { customData: { fromId: { $gt: '' }, body: ['x'], toId: 1, messageSid: true } },
    { customData: { email: Number.MAX_VALUE } },
    { contactId: 'ct_x'.repeat(100) },
  ];
  const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
  const deepObject = `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`;

  test('hostile bodies on every JSON route', async () => {
    const routes: Array<[string, string, TestAccount]> = [
      ...jsonRoutes.map(([m, p]) => [m, p, account] as [string, string, TestAccount]),
      ['POST', 'incoming_custom_channel_message', account],
      ['POST', 'subaccounts/credits', agency],
    ];
    for (const [method, path, who] of routes) {
      for (const body of [...hostile, deep, deepObject]) {
        const res = await api(ctx.gw, who, method, path, {
          body: typeof body === 'string' ? body : JSON.stringify(body),
        });
        expect({ method, path, status: res.status < 500 }).toEqual({ method, path, status: true });
        expectNoStack(res);
        if (res.status >= 400) expect(res.body).toHaveProperty('error');
      }
    }
  });

  test('hostile path parameters and queries', async () => {
    const paths = [
      '/v1/contacts/%00',
      '/v1/contacts/..%2F..%2Fstore',
      '/v1/media/..%2F..%2Fadmin-token',
      '/v1/media/%2e%2e',
      '/v1/contacts/%E0%A4%A',
      '/v1/messages/__proto__',
      '/v1/campaigns/constructor',
      '/v1/lists/hasOwnProperty/contacts',
      '/v1/contacts?email=%00',
      '/v1/contacts?phoneNumber=%2B%2B%2B&email=',
      '/v1/contacts?__proto__=1',
    ];
    for (const path of paths) {
      const res = await api(ctx.gw, account, 'GET', path);
      expect({ path, status: res.status >= 400 && res.status < 500 }).toEqual({ path, status: true });
      expectNoStack(res);
    }
  });

  test('hostile keys and headers', async () => {
    for (const apiKey of ['\u00ff\u00fe', 'x'.repeat(5000), "' OR 1=1 --", '../../admin-token']) {
      const res = await request(ctx.gw, 'GET', '/v1/lists', {
        headers: { 'x-api-key': Buffer.from(apiKey).toString('latin1') },
      });
      expectApiError(res, 401);
    }
    const badKey = await api(ctx.gw, agency, 'POST', 'subaccounts/credits', {
      body: { email: 'a@example.com', amount: 1 },
      headers: { 'idempotency-key': 'é' },
    });
    expect(badKey.status).toBeLessThan(500);
  });
});

describe('rate limit (LEADCHAT_RATE_LIMIT_PER_MINUTE=5)', () => {
  const limited = useGateway({ LEADCHAT_RATE_LIMIT_PER_MINUTE: '5' });

  test('the 6th request of a key → 429 RATE_LIMITED with RateLimit, RateLimit-Policy and Retry-After; another key is unaffected', async () => {
    const a = await createAccount(limited.gw);
    const b = await createAccount(limited.gw);
    for (let i = 0; i < 5; i++) {
      const ok = await api(limited.gw, a, 'GET', 'lists', { keyIn: (['header', 'bearer', 'query'] as const)[i % 3] });
      expect(ok.status).toBe(200);
      expect(ok.headers['ratelimit-policy']).toMatch(/q=5\b/);
      expect(ok.headers.ratelimit).toMatch(new RegExp(`r=${4 - i}\\b`));
    }
    const refused = await api(limited.gw, a, 'POST', 'contacts', { body: { phone: '+15550100199' } });
    expectApiError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers.ratelimit).toMatch(/r=0\b/);
    expect(refused.headers['ratelimit-policy']).toMatch(/q=5\b/);
    expect(refused.headers['ratelimit-policy']).toMatch(/w=60\b/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The refused request did nothing.
    expect((await api(limited.gw, b, 'GET', 'contacts', { query: { phoneNumber: '+15550100199' } })).status).toBe(404);

    // The incoming endpoint answers the limit in its own shape.
    const plain = await api(limited.gw, a, 'POST', 'incoming_custom_channel_message', { body: incoming() });
    expectPlainError(plain, 429);
    expect(plain.headers['retry-after']).toBeDefined();

    // Every way of presenting the same key is the same budget.
    expect((await api(limited.gw, a, 'GET', 'lists', { keyIn: 'query' })).status).toBe(429);

    // Another key's budget is its own.
    for (let i = 0; i < 4; i++) expect((await api(limited.gw, b, 'GET', 'lists')).status).toBe(200);
  });

  test('the limit is per key, not per address: requests without a valid key are 401, never 429', async () => {
    for (let i = 0; i < 8; i++) expectApiError(await request(limited.gw, 'GET', '/v1/lists'), 401, 'UNAUTHORIZED');
    const c = await createAccount(limited.gw);
    expect((await api(limited.gw, c, 'GET', 'lists')).status).toBe(200);
  });

  test('a flood of one key does not refuse another key', async () => {
    const flooder = await createAccount(limited.gw);
    const quiet = await createAccount(limited.gw);
    const flood = await Promise.all(Array.from({ length: 30 }, () => api(limited.gw, flooder, 'GET', 'lists')));
    expect(flood.filter((r) => r.status === 200)).toHaveLength(5);
    expect(flood.filter((r) => r.status === 429)).toHaveLength(25);
    expect((await api(limited.gw, quiet, 'GET', 'lists')).status).toBe(200);
  });
});

/** POSTs a 1 MB body in 64 chunks, one per turn of the event loop, so that the answer comes while it is being written. */
function slowlyWritten(path: string, headers: Record<string, string>): Promise<number | string> {
  const chunk = Buffer.alloc(16 * 1024, 0x20);
  return new Promise((resolve) => {
    const req = https.request(
      new URL(path, ctx.gw.url),
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(chunk.length * 64) },
        ca: ctx.gw.ca,
        agent: false,
      },
      (res) => {
        res.resume().on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', (err) => resolve(err.message));
    let written = 0;
    const next = () => {
      if (++written > 64) return void req.end();
      req.write(chunk);
      setImmediate(next);
    };
    next();
  });
}
