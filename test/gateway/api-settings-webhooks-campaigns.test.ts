import {
  api,
  createAccount,
  expectApiError,
  HANDOFF_NOTICE,
  NEW_WEBHOOK,
  request,
  useGateway,
  type TestAccount,
} from './api-support';

const NONE_UNREACHABLE = {
  total: 0,
  byReason: {
    no_external_id: 0,
    no_phone: 0,
    opted_out: 0,
    outside_whatsapp_window: 0,
    no_first_message: 0,
    outside_meta_window: 0,
  },
};

/** Part E: settings (spec §4.7), webhook subscriptions and campaign records (spec §2.3). */
const ctx = useGateway();
let account: TestAccount;
beforeAll(async () => {
  account = await createAccount(ctx.gw);
});

/**
 * A new account's hand-off notice, the built-in text in English, its reminder after 15 minutes, the team taking a
 * conversation the bot has answered 30 times in an hour, and no business hours: always open, the away notice unused.
 */
const HANDOFF_DEFAULTS = {
  handoffMessage: null,
  defaultHandoffMessage: HANDOFF_NOTICE,
  language: 'en',
  handoffReminderAfter: '15m',
  botReplyLimit: 30,
  businessHours: null,
  awayMessage: null,
  defaultAwayMessage:
    'Thanks for your message! Our team is away right now; we will get back to you as soon as we are back.',
};

describe('settings', () => {
  test('GET: no URL yet, and a whsec_ signing secret; not cacheable', async () => {
    const fresh = await createAccount(ctx.gw);
    const res = await api(ctx.gw, fresh, 'GET', 'settings');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      customChannelWebhookUrl: null,
      webhookSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{16,}=*$/),
      previousSecretExpiresAt: null,
      helpText: expect.stringMatching(/STOP/),
      handoffAssignment: 'none',
      defaultCountry: null,
      ...HANDOFF_DEFAULTS,
    });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(Buffer.from(res.body.webhookSecret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
  });

  test('PUT saves the URL; GET shows it; null clears it', async () => {
    const url = 'https://hooks.example.com/leadchat/replies?token=abc';
    const put = await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: url } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      customChannelWebhookUrl: url,
      webhookSecret: expect.stringMatching(/^whsec_/),
      previousSecretExpiresAt: null,
      helpText: expect.any(String),
      handoffAssignment: 'none',
      defaultCountry: null,
      ...HANDOFF_DEFAULTS,
    });
    expect((await api(ctx.gw, account, 'GET', 'settings')).body).toEqual(put.body);

    const cleared = await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.customChannelWebhookUrl).toBeNull();
    expect(cleared.body.webhookSecret).toBe(put.body.webhookSecret);
  });

  test.each<[string, unknown]>([
    ['no field', {}],
    ['not a URL', { customChannelWebhookUrl: 'not a url' }],
    ['empty', { customChannelWebhookUrl: '' }],
    ['ftp', { customChannelWebhookUrl: 'ftp://files.example.com/in' }],
    ['javascript:', { customChannelWebhookUrl: 'javascript:alert(1)' }],
    ['file:', { customChannelWebhookUrl: 'file:///etc/passwd' }],
    ['a number', { customChannelWebhookUrl: 42 }],
    ['too long', { customChannelWebhookUrl: `https://example.com/${'a'.repeat(3000)}` }],
  ])('PUT with %s → 400; the saved URL is kept', async (_what, body) => {
    const url = 'https://kept.example.com/hook';
    await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: url } });
    expectApiError(await api(ctx.gw, account, 'PUT', 'settings', { body }), 400);
    expect((await api(ctx.gw, account, 'GET', 'settings')).body.customChannelWebhookUrl).toBe(url);
  });

  test('POST /v1/settings/webhook-secret rotates the secret, keeps the URL and says until when the old one signs', async () => {
    const before = (await api(ctx.gw, account, 'GET', 'settings')).body;
    const res = await api(ctx.gw, account, 'POST', 'settings/webhook-secret');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      customChannelWebhookUrl: before.customChannelWebhookUrl,
      webhookSecret: expect.stringMatching(/^whsec_/),
      previousSecretExpiresAt: new Date(ctx.gw.now() + 24 * 3_600_000).toISOString(),
      helpText: before.helpText,
      handoffAssignment: 'none',
      defaultCountry: null,
      ...HANDOFF_DEFAULTS,
    });
    expect(res.body.webhookSecret).not.toBe(before.webhookSecret);
    expect((await api(ctx.gw, account, 'GET', 'settings')).body).toEqual(res.body);
  });

  test("settings are the caller's own", async () => {
    const other = await createAccount(ctx.gw);
    const mine = (await api(ctx.gw, account, 'GET', 'settings')).body;
    const theirs = (await api(ctx.gw, other, 'GET', 'settings')).body;
    expect(theirs.webhookSecret).not.toBe(mine.webhookSecret);
    expect(theirs.customChannelWebhookUrl).toBeNull();
  });
});

describe('webhook subscriptions', () => {
  test('create → 201 with its secret (shown once); GET one and all without it; DELETE → 204, then 404', async () => {
    const owner = await createAccount(ctx.gw);
    const created = await api(ctx.gw, owner, 'POST', 'webhooks', {
      body: { url: 'https://n8n.example.com/webhook/abc', events: ['reply', 'auto_recharge'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      url: 'https://n8n.example.com/webhook/abc',
      events: ['reply', 'auto_recharge'],
      createdAt: expect.stringMatching(/Z$/),
      ...NEW_WEBHOOK,
      secret: expect.stringMatching(/^whsec_/),
    });
    const { secret: _s, ...shown } = created.body;

    const one = await api(ctx.gw, owner, 'GET', `webhooks/${created.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(shown);
    expect((await api(ctx.gw, owner, 'GET', 'webhooks')).body).toEqual({ data: [shown], nextCursor: null });

    const del = await api(ctx.gw, owner, 'DELETE', `webhooks/${created.body.id}`);
    expect(del.status).toBe(204);
    expectApiError(await api(ctx.gw, owner, 'GET', `webhooks/${created.body.id}`), 404, 'WEBHOOK_NOT_FOUND');
    expectApiError(await api(ctx.gw, owner, 'DELETE', `webhooks/${created.body.id}`), 404, 'WEBHOOK_NOT_FOUND');
    expect((await api(ctx.gw, owner, 'GET', 'webhooks')).body).toEqual({ data: [], nextCursor: null });
  });

  test.each<[string, unknown]>([
    ['no url', { events: ['reply'] }],
    ['a bad url', { url: 'nope', events: ['reply'] }],
    ['an ftp url', { url: 'ftp://example.com/x', events: ['reply'] }],
    ['no events', { url: 'https://example.com/h' }],
    ['empty events', { url: 'https://example.com/h', events: [] }],
    ['an unknown event', { url: 'https://example.com/h', events: ['everything'] }],
    ['events as a string', { url: 'https://example.com/h', events: 'reply' }],
  ])('create with %s → 400, nothing created', async (_what, body) => {
    const owner = await createAccount(ctx.gw);
    expectApiError(await api(ctx.gw, owner, 'POST', 'webhooks', { body }), 400);
    expect((await api(ctx.gw, owner, 'GET', 'webhooks')).body).toEqual({ data: [], nextCursor: null });
  });

  test('a repeated event is named once', async () => {
    const res = await api(ctx.gw, account, 'POST', 'webhooks', {
      body: { url: 'https://n8n.example.com/webhook/dup', events: ['reply', 'reply'] },
    });
    expect(res.status).toBe(201);
    expect(res.body.events).toEqual(['reply']);
  });

  test('unknown id → 404', async () => {
    expectApiError(await api(ctx.gw, account, 'GET', 'webhooks/whk_unknown'), 404, 'WEBHOOK_NOT_FOUND');
    expectApiError(await api(ctx.gw, account, 'DELETE', 'webhooks/whk_unknown'), 404, 'WEBHOOK_NOT_FOUND');
  });
});

describe('campaigns', () => {
  let listId: string;
  beforeAll(async () => {
    listId = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Campaign list' } })).body.id;
  });

  test('create with a name only → 201 with the defaults', async () => {
    const res = await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'Spring funnel' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Spring funnel',
      type: 'combined',
      language: 'en',
      listId: null,
      channel: 'whatsapp',
      customChannel: null,
      openingTemplate: null,
      openingTemplateParams: [],
      reengagementTemplate: null,
      reengagementTemplateParams: [],
      templateLanguage: null,
      openingMessage: null,
      triggerOnNewContacts: false,
      status: 'draft',
      sendRate: '30/m',
      sendingWindow: null,
      followUps: { enabled: false, steps: [] },
      bot: { active: true, instructions: '', companyInfo: '', faqs: [], resources: [], goal: '', handoffMessage: null },
      version: 1,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    expect(res.body).not.toHaveProperty('accountId');
    const read = await api(ctx.gw, account, 'GET', `campaigns/${res.body.id}`);
    expect(read.status).toBe(200);
    // Read one at a time, a campaign also says how many contacts it could not reach.
    expect(read.body).toEqual({ ...res.body, unreachable: NONE_UNREACHABLE });
  });

  test('create with every setting → stored as given; listed by GET /v1/campaigns', async () => {
    const body = {
      name: 'Dental leads',
      type: 'outgoing',
      language: 'pt-BR',
      listId,
      channel: 'sms',
      openingTemplate: 'welcome_v2',
      openingMessage: 'Hi {{firstName}}!',
      triggerOnNewContacts: true,
      status: 'live',
      sendRate: '10/m',
      sendingWindow: { start: '08:00', end: '21:00', timezone: 'America/New_York' },
      followUps: {
        enabled: true,
        steps: [
          { after: '1h', body: 'Still there, {{first_name}}?' },
          { after: '1d', body: 'Last call' },
        ],
      },
      bot: {
        active: false,
        instructions: 'Be brief',
        companyInfo: 'Smile Co',
        faqs: [{ question: 'Price?', answer: 'From $50' }],
        resources: ['https://smile.example.com'],
        goal: 'Book a visit',
      },
    };
    const res = await api(ctx.gw, account, 'POST', 'campaigns', { body });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject(body);
    const all = await api(ctx.gw, account, 'GET', 'campaigns');
    expect(all.status).toBe(200);
    expect(all.body.data).toContainEqual(res.body);
  });

  test('a campaign linked to a list triggers on its new contacts unless told otherwise; one without a list does not', async () => {
    const linked = await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'Linked', listId } });
    expect(linked.body.triggerOnNewContacts).toBe(true);
    const off = await api(ctx.gw, account, 'POST', 'campaigns', {
      body: { name: 'Linked, off', listId, triggerOnNewContacts: false },
    });
    expect(off.body.triggerOnNewContacts).toBe(false);
    expect(
      (await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'Alone' } })).body.triggerOnNewContacts,
    ).toBe(false);
  });

  test('a campaign made without a list and linked to one later triggers on its new contacts, unless the change says not to; moved to another list it keeps its trigger', async () => {
    const patch = async (id: string, body: Record<string, unknown>) =>
      (await api(ctx.gw, account, 'PATCH', `campaigns/${id}`, { body })).body.triggerOnNewContacts;
    const other = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Other leads' } })).body.id;
    const alone = (await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'Alone, then linked' } })).body;
    expect(await patch(alone.id, { listId })).toBe(true);
    const quiet = (await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'Alone, linked off' } })).body;
    expect(await patch(quiet.id, { listId, triggerOnNewContacts: false })).toBe(false);
    expect(await patch(quiet.id, { listId: other })).toBe(false);
    expect(await patch(alone.id, { triggerOnNewContacts: false })).toBe(false);
    expect(await patch(alone.id, { listId: other })).toBe(false);
  });

  test('a partial bot is completed with the defaults', async () => {
    const res = await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'Bot', bot: { goal: 'Qualify' } } });
    expect(res.body.bot).toEqual({
      active: true,
      instructions: '',
      companyInfo: '',
      faqs: [],
      resources: [],
      goal: 'Qualify',
      handoffMessage: null,
    });
  });

  test('listId of another account or unknown → 404, nothing created', async () => {
    const other = await createAccount(ctx.gw);
    const foreignList = (await api(ctx.gw, other, 'POST', 'lists', { body: { name: 'Theirs' } })).body.id;
    const before = (await api(ctx.gw, account, 'GET', 'campaigns')).body.data.length;
    expectApiError(
      await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'X', listId: foreignList } }),
      404,
      'LIST_NOT_FOUND',
    );
    expectApiError(
      await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'X', listId: 'lst_unknown' } }),
      404,
      'LIST_NOT_FOUND',
    );
    expect((await api(ctx.gw, account, 'GET', 'campaigns')).body.data).toHaveLength(before);
  });

  test.each<[string, unknown]>([
    ['no name', {}],
    ['blank name', { name: '  ' }],
    ['unknown type', { name: 'x', type: 'broadcast' }],
    ['unknown status', { name: 'x', status: 'archived' }],
    ['unknown channel', { name: 'x', channel: 'fax' }],
    ['trigger not a boolean', { name: 'x', triggerOnNewContacts: 'yes' }],
    ['follow-up delay of 0', { name: 'x', followUps: { enabled: true, steps: [{ after: '0s', body: 'x' }] } }],
    [
      'six follow-up steps',
      { name: 'x', followUps: { enabled: true, steps: Array.from({ length: 6 }, () => ({ after: '1h', body: 'x' })) } },
    ],
    [
      'a sending window in an unknown zone',
      { name: 'x', sendingWindow: { start: '08:00', end: '21:00', timezone: 'Mars/Olympus' } },
    ],
    ['faq without answer', { name: 'x', bot: { faqs: [{ question: 'q' }] } }],
  ])('create with %s → 400', async (_what, body) => {
    expectApiError(await api(ctx.gw, account, 'POST', 'campaigns', { body }), 400);
  });

  test("a sending window's time zone is kept under its current IANA name, whatever case or older name it came in", async () => {
    const zoneOf = async (timezone: string) => {
      const res = await api(ctx.gw, account, 'POST', 'campaigns', {
        body: { name: 'Windowed', sendingWindow: { start: '08:00', end: '21:00', timezone } },
      });
      expect(res.status).toBe(201);
      return res.body.sendingWindow.timezone;
    };
    for (const [given, kept] of [
      ['Asia/Kolkata', 'Asia/Kolkata'],
      ['Asia/Calcutta', 'Asia/Kolkata'],
      ['asia/kathmandu', 'Asia/Kathmandu'],
      ['Europe/Kyiv', 'Europe/Kyiv'],
      ['Asia/Ho_Chi_Minh', 'Asia/Ho_Chi_Minh'],
      ['America/Argentina/Buenos_Aires', 'America/Argentina/Buenos_Aires'],
      ['America/Nuuk', 'America/Nuuk'],
      ['US/Eastern', 'America/New_York'],
      ['utc', 'UTC'],
      ['Europe/Berlin', 'Europe/Berlin'],
    ])
      expect([given, await zoneOf(given)]).toEqual([given, kept]);
  });

  test('the send rate, follow-up delays and sending window are kept without the spaces typed around them', async () => {
    const body = {
      name: 'Spaced',
      sendRate: ' 30/m ',
      sendingWindow: { start: ' 08:00', end: '21:00 ', timezone: ' Europe/Berlin ' },
      followUps: { enabled: true, steps: [{ after: ' 2h ', body: 'Still there?' }] },
    };
    const created = await api(ctx.gw, account, 'POST', 'campaigns', { body });
    expect(created.status).toBe(201);
    const kept = {
      sendRate: '30/m',
      sendingWindow: { start: '08:00', end: '21:00', timezone: 'Europe/Berlin' },
      followUps: { enabled: true, steps: [{ after: '2h', body: 'Still there?' }] },
    };
    expect(created.body).toMatchObject(kept);
    const patched = await api(ctx.gw, account, 'PATCH', `campaigns/${created.body.id}`, {
      body: { sendRate: '10/m\t', followUps: { steps: [{ after: '\n1d', body: 'Last call' }] } },
    });
    expect(patched.body).toMatchObject({
      sendRate: '10/m',
      followUps: { steps: [{ after: '1d', body: 'Last call' }] },
    });
    expect((await api(ctx.gw, account, 'GET', `campaigns/${created.body.id}`)).body).toMatchObject({
      sendRate: '10/m',
      sendingWindow: kept.sendingWindow,
      followUps: { steps: [{ after: '1d' }] },
    });
  });

  test('language: a BCP 47 tag, stored in its canonical form; anything else → 400 naming it, nothing stored', async () => {
    const created = async (language: string) =>
      (await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'Tagged', language } })).body;
    expect((await created('pt-br')).language).toBe('pt-BR');
    expect((await created(' zh-hant-tw ')).language).toBe('zh-Hant-TW');
    expect((await created('es-419')).language).toBe('es-419');
    expect((await created('EN')).language).toBe('en');

    const before = (await api(ctx.gw, account, 'GET', 'campaigns', { query: { limit: '200' } })).body.data.length;
    const stable = await created('fr');
    for (const language of ['../../x', 'en_US', 'pt BR', '', 'e', '12', 'en-', 'x'.repeat(36)]) {
      const res = await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'Bad tag', language } });
      expectApiError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.message).toMatch(/^language: /);
      expectApiError(
        await api(ctx.gw, account, 'PATCH', `campaigns/${stable.id}`, { body: { language } }),
        400,
        'VALIDATION_ERROR',
      );
    }
    expect((await api(ctx.gw, account, 'GET', 'campaigns', { query: { limit: '200' } })).body.data).toHaveLength(
      before + 1,
    );
    expect((await api(ctx.gw, account, 'GET', `campaigns/${stable.id}`)).body).toEqual({
      ...stable,
      unreachable: NONE_UNREACHABLE,
    });

    const patched = await api(ctx.gw, account, 'PATCH', `campaigns/${stable.id}`, { body: { language: 'fr-ca' } });
    expect(patched.body.language).toBe('fr-CA');
  });

  test("a WhatsApp template's language comes from the campaign's language and region, without its script", async () => {
    const contact = (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: '+15550100177' } })).body;
    for (const [language, code] of [
      ['zh-Hant-TW', 'zh_TW'],
      ['pt-br', 'pt_BR'],
      ['es', 'es'],
    ]) {
      const campaign = (
        await api(ctx.gw, account, 'POST', 'campaigns', {
          body: { name: 'Templated', language, openingTemplate: 'welcome' },
        })
      ).body;
      const preview = await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/preview`, {
        query: { contactId: contact.id },
      });
      expect({ language, template: preview.body.template }).toEqual({
        language,
        template: { name: 'welcome', language: code, params: [] },
      });
    }
  });

  test('PATCH changes the given fields and merges bot and followUps', async () => {
    const created = (
      await api(ctx.gw, account, 'POST', 'campaigns', {
        body: {
          name: 'To change',
          channel: 'sms',
          openingMessage: 'Hi',
          bot: { instructions: 'Keep me', goal: 'Old goal' },
          followUps: { enabled: false, steps: [{ after: '30m', body: 'Hello?' }] },
        },
      })
    ).body;
    const res = await api(ctx.gw, account, 'PATCH', `campaigns/${created.id}`, {
      body: {
        status: 'live',
        triggerOnNewContacts: true,
        listId,
        bot: { goal: 'New goal' },
        followUps: { enabled: true },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...created,
      status: 'live',
      triggerOnNewContacts: true,
      listId,
      bot: { ...created.bot, instructions: 'Keep me', goal: 'New goal' },
      followUps: { enabled: true, steps: [{ after: '30m', body: 'Hello?' }] },
      version: 2,
      updatedAt: expect.stringMatching(/Z$/),
    });
    expect((await api(ctx.gw, account, 'GET', `campaigns/${created.id}`)).body).toEqual({
      ...res.body,
      unreachable: NONE_UNREACHABLE,
    });

    // A Live campaign needs its list: it is paused to be detached.
    expectApiError(
      await api(ctx.gw, account, 'PATCH', `campaigns/${created.id}`, { body: { listId: null } }),
      400,
      'CAMPAIGN_CANNOT_SEND',
    );
    const detached = await api(ctx.gw, account, 'PATCH', `campaigns/${created.id}`, {
      body: { listId: null, status: 'paused' },
    });
    expect(detached.status).toBe(200);
    expect(detached.body.listId).toBeNull();
  });

  test('PATCH with nothing, bad values, a foreign list or an unknown id → 400/404, nothing changes', async () => {
    const created = (await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'Stable' } })).body;
    const other = await createAccount(ctx.gw);
    const foreignList = (await api(ctx.gw, other, 'POST', 'lists', { body: { name: 'Theirs' } })).body.id;
    expectApiError(await api(ctx.gw, account, 'PATCH', `campaigns/${created.id}`, { body: {} }), 400);
    expectApiError(await api(ctx.gw, account, 'PATCH', `campaigns/${created.id}`, { body: { status: 'done' } }), 400);
    expectApiError(await api(ctx.gw, account, 'PATCH', `campaigns/${created.id}`, { body: { name: '' } }), 400);
    expectApiError(
      await api(ctx.gw, account, 'PATCH', `campaigns/${created.id}`, { body: { listId: foreignList } }),
      404,
      'LIST_NOT_FOUND',
    );
    expectApiError(
      await api(ctx.gw, account, 'PATCH', 'campaigns/cmp_unknown', { body: { status: 'live' } }),
      404,
      'CAMPAIGN_NOT_FOUND',
    );
    expect((await api(ctx.gw, account, 'GET', `campaigns/${created.id}`)).body).toEqual({
      ...created,
      unreachable: NONE_UNREACHABLE,
    });
  });

  test('unknown campaign → 404; no key → 401', async () => {
    expectApiError(await api(ctx.gw, account, 'GET', 'campaigns/cmp_unknown'), 404, 'CAMPAIGN_NOT_FOUND');
    expectApiError(await request(ctx.gw, 'GET', '/v1/campaigns'), 401, 'UNAUTHORIZED');
  });
});
