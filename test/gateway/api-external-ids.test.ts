import {
  api,
  createAccount,
  expectApiError,
  poll,
  Receiver,
  uniquePhone,
  useGateway,
  type TestAccount,
} from './api-support';

/**
 * A contact is one person on every channel (spec §2.1, §2.4, §3.2): its phone on SMS and WhatsApp, and its ID on
 * each custom channel, by the channel's label. Contacts are created and imported with their external IDs, a custom
 * campaign's opening message goes to the ID of its own label, and a fromId that is a known contact's phone or email
 * is that contact.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '200ms', LEADCHAT_BOT_DEBOUNCE: '0s' });

const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

const FAQS = [{ question: 'What are your opening hours?', answer: 'We are open Monday to Friday, 9am to 6pm.' }];

/** An account whose replies go to a receiver, and a Live campaign on the custom channel `livechat` linked to a list. */
async function setUp(): Promise<{ account: TestAccount; hook: Receiver; listId: string; campaignId: string }> {
  const account = await createAccount(ctx.gw);
  const hook = await Receiver.start();
  receivers.push(hook);
  expect((await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } })).status).toBe(
    200,
  );
  const listId = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Chat leads' } })).body.id;
  const campaign = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Chat',
      channel: 'custom',
      customChannel: 'livechat',
      listId,
      openingMessage: 'Hi {{first_name|there}}!',
      triggerOnNewContacts: true,
      status: 'live',
      bot: { faqs: FAQS },
    },
  });
  expect(campaign.status).toBe(201);
  return { account, hook, listId, campaignId: campaign.body.id };
}

const replies = (hook: Receiver) =>
  hook.requests.filter((r) => r.headers['webhook-event'] === 'reply').map((r) => r.body);

describe('POST /contacts with external IDs', () => {
  test('kept by label and shown on the contact; the same ID again is the same contact', async () => {
    const account = await createAccount(ctx.gw);
    const phone = uniquePhone();
    const created = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { phone, firstName: 'Ana', externalIds: { livechat: 'visitor-42', crm: '9001' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.externalIds).toEqual({ livechat: 'visitor-42', crm: '9001' });
    expect((await api(ctx.gw, account, 'GET', `contacts/${created.body.id}`)).body.externalIds).toEqual({
      livechat: 'visitor-42',
      crm: '9001',
    });

    // Known by an external ID alone, in snake_case too.
    const again = await api(ctx.gw, account, 'POST', 'contacts', { body: { external_ids: { crm: '9001' } } });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(created.body.id);

    // An existing phone with a new label: the contact gains it.
    const more = await api(ctx.gw, account, 'POST', 'contacts', { body: { phone, externalIds: { telegram: 'tg-7' } } });
    expect(more.status).toBe(200);
    expect(more.body.externalIds).toEqual({ livechat: 'visitor-42', crm: '9001', telegram: 'tg-7' });

    // Another account's IDs are its own.
    const stranger = await createAccount(ctx.gw);
    expect((await api(ctx.gw, stranger, 'POST', 'contacts', { body: { externalIds: { crm: '9001' } } })).status).toBe(
      201,
    );
  });

  test('an ID another contact holds, under any label, or a second ID on one label is 409 EXTERNAL_ID_TAKEN; nothing is stored', async () => {
    const account = await createAccount(ctx.gw);
    const first = (
      await api(ctx.gw, account, 'POST', 'contacts', {
        body: { phone: uniquePhone(), externalIds: { livechat: 'v-1' } },
      })
    ).body;
    const otherPhone = uniquePhone();
    const taken = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { phone: otherPhone, externalIds: { crm: 'v-1' } },
    });
    expectApiError(taken, 409, 'EXTERNAL_ID_TAKEN');
    expect(taken.body.error.message).toMatch(/externalIds\.crm/);
    expectApiError(await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: otherPhone } }), 404);

    const second = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { phone: first.phone, externalIds: { livechat: 'v-2' } },
    });
    expectApiError(second, 409, 'EXTERNAL_ID_TAKEN');
    expect((await api(ctx.gw, account, 'GET', `contacts/${first.id}`)).body.externalIds).toEqual({ livechat: 'v-1' });
  });

  test('a contact known by its external ID alone gains the phone it is created with again', async () => {
    const account = await createAccount(ctx.gw);
    const visitor = (await api(ctx.gw, account, 'POST', 'contacts', { body: { externalIds: { livechat: 'v-9' } } }))
      .body;
    const phone = uniquePhone();
    const same = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { phone, firstName: 'Vera', externalIds: { livechat: 'v-9' } },
    });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ id: visitor.id, phone, externalIds: { livechat: 'v-9' } });
    expect((await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } })).body.id).toBe(visitor.id);
    // Now with a phone: another phone with its ID is another person, refused.
    const other = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { phone: uniquePhone(), externalIds: { livechat: 'v-9' } },
    });
    expectApiError(other, 409, 'EXTERNAL_ID_TAKEN');
    expect(other.body.error.message).toMatch(/a contact with another phone/);
  });

  test('a contact found by its phone gains the labels it lacks up to 20: past them → 400 TOO_MANY, and nothing is added', async () => {
    const account = await createAccount(ctx.gw);
    const phone = uniquePhone();
    const ids = (prefix: string, n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, `${prefix}-${i}-${phone}`]));
    const c = await api(ctx.gw, account, 'POST', 'contacts', { body: { phone, externalIds: ids('app', 18) } });
    expect(c.status).toBe(201);
    const more = await api(ctx.gw, account, 'POST', 'contacts', { body: { phone, externalIds: ids('crm', 3) } });
    expectApiError(more, 400, 'VALIDATION_ERROR');
    expect(more.body.error.fields).toEqual([
      { field: 'externalIds', code: 'TOO_MANY', message: 'a contact holds at most 20 external IDs', limit: 20 },
    ]);
    expect((await api(ctx.gw, account, 'GET', `contacts/${c.body.id}`)).body).toEqual(c.body);
    const two = await api(ctx.gw, account, 'POST', 'contacts', { body: { phone, externalIds: ids('crm', 2) } });
    expect({ status: two.status, labels: Object.keys(two.body.externalIds).length }).toEqual({
      status: 200,
      labels: 20,
    });
  });

  test('bad external IDs are 400', async () => {
    const account = await createAccount(ctx.gw);
    for (const externalIds of [
      { '': 'x' },
      { chat: '' },
      { chat: 7 },
      'v-1',
      Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`l${i}`, `id${i}`])),
    ]) {
      expectApiError(
        await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone(), externalIds } }),
        400,
        'VALIDATION_ERROR',
      );
    }
    expectApiError(
      await api(ctx.gw, account, 'POST', 'contacts', { body: { firstName: 'Nobody' } }),
      400,
      'VALIDATION_ERROR',
    );
  });

  test('the label "__proto__" is refused wherever a label is given, and nothing is stored', async () => {
    const account = await createAccount(ctx.gw);
    const phone = uniquePhone();
    // Sent as text: an object literal would take "__proto__" as its prototype, as the gateway must not.
    const raw = (method: string, path: string, body: string) => api(ctx.gw, account, method, path, { body });
    const refused = (res: { body: { error: { fields?: Array<{ message: string }> } } }) =>
      expect(res.body.error.fields?.map((f) => f.message)).toContain('must not be "__proto__"');
    const created = await raw('POST', 'contacts', `{"phone":"${phone}","externalIds":{"__proto__":"v-1"}}`);
    expectApiError(created, 400, 'VALIDATION_ERROR');
    refused(created);
    const contact = (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone } })).body;
    const corrected = await raw('PATCH', `contacts/${contact.id}`, '{"externalIds":{"__proto__":null}}');
    expectApiError(corrected, 400, 'VALIDATION_ERROR');
    refused(corrected);
    const sent = await raw(
      'POST',
      'send_custom_channel_message',
      '{"customData":{"fromId":"v-2","customChannel":"__proto__","body":"hi"}}',
    );
    expectApiError(sent, 400, 'VALIDATION_ERROR');
    const campaign = await raw('POST', 'campaigns', '{"name":"C","channel":"custom","customChannel":"__proto__"}');
    expectApiError(campaign, 400, 'VALIDATION_ERROR');
    const incoming = await raw(
      'POST',
      'incoming_custom_channel_message',
      '{"customData":{"messageSid":"s-1","fromId":"v-3","toId":"b","body":"hi","channel":"__proto__"}}',
    );
    expect(incoming.status).toBe(400);
    expect(incoming.text).toContain('__proto__');
    // However deep it is put, in a body nesting deeper than a call stack goes.
    const deep = `{"phone":"${phone}","customFields":${'['.repeat(40_000)}{"__proto__":1}${']'.repeat(40_000)}}`;
    expectApiError(await raw('POST', 'contacts', deep), 400, 'VALIDATION_ERROR');
    for (const q of ['v-1', 'v-2', 'v-3'])
      expect((await api(ctx.gw, account, 'GET', 'contacts', { query: { q } })).body.data).toEqual([]);
  });
});

describe('a Live custom-channel campaign reaches its list by the external ID of its label', () => {
  test('imported with an external-ID column: each contact gets its opening at its ID; a row without one is skipped and counted, a taken ID rejected', async () => {
    const { account, hook, listId, campaignId } = await setUp();
    const taken = (
      await api(ctx.gw, account, 'POST', 'contacts', {
        body: { phone: uniquePhone(), externalIds: { livechat: 'v-taken' } },
      })
    ).body;
    const [p1, p2, p3, p4] = [uniquePhone(), uniquePhone(), uniquePhone(), uniquePhone()];
    const csv = `Phone,Name,Chat ID\n${p1},Ana,v-100\n${p2},Ben,v-200\n${p3},Cy,\n${p4},Di,v-taken\n`;
    const created = await api(ctx.gw, account, 'POST', `lists/${listId}/imports`, {
      body: { csv, columns: { phone: 'Phone', firstName: 'Name', externalIds: { livechat: 'Chat ID' } } },
    });
    expect(created.status).toBe(202);
    const report = await poll(
      () => api(ctx.gw, account, 'GET', `imports/${created.body.id}`),
      (r) => r.body.status === 'done',
    );
    expect(report.body).toMatchObject({
      total: 4,
      added: 3,
      rejected: 1,
      unreachable: 1,
      errors: [{ row: 5, code: 'EXTERNAL_ID_TAKEN' }],
    });

    await poll(
      async () => replies(hook).length,
      (n) => n >= 2,
    );
    expect(
      replies(hook)
        .map((r) => [r.toId, r.body, r.channel])
        .sort(),
    ).toEqual([
      ['v-100', 'Hi Ana!', 'livechat'],
      ['v-200', 'Hi Ben!', 'livechat'],
    ]);
    const cy = (await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: p3 } })).body;
    const conversations = (await api(ctx.gw, account, 'GET', 'conversations', { query: { limit: '200' } })).body
      .data as any[];
    expect(conversations.find((c) => c.contactId === cy.id).opening).toMatchObject({
      status: 'skipped',
      reason: 'no_external_id',
    });
    expect(taken.externalIds).toEqual({ livechat: 'v-taken' });

    // The campaign says how many of its list it could not reach, and why; Cy added again counts once.
    await api(ctx.gw, account, 'POST', `lists/${listId}/contacts`, { body: { contactId: cy.id } });
    const campaign = (await api(ctx.gw, account, 'GET', `campaigns/${campaignId}`)).body;
    expect(campaign.unreachable).toEqual({
      total: 1,
      byReason: {
        no_external_id: 1,
        no_phone: 0,
        opted_out: 0,
        outside_whatsapp_window: 0,
        no_first_message: 0,
        outside_meta_window: 0,
      },
    });
  });

  test('an SMS campaign counts the contacts it cannot reach for want of a phone', async () => {
    const account = await createAccount(ctx.gw);
    const listId = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'SMS leads' } })).body.id;
    const campaign = (
      await api(ctx.gw, account, 'POST', 'campaigns', {
        body: { name: 'SMS', channel: 'sms', listId, openingMessage: 'Hi', triggerOnNewContacts: true, status: 'live' },
      })
    ).body;
    const created = await api(ctx.gw, account, 'POST', `lists/${listId}/imports`, {
      body: { contacts: [{ email: 'a@example.com' }, { email: 'b@example.com' }, { phone: uniquePhone() }] },
    });
    const report = await poll(
      () => api(ctx.gw, account, 'GET', `imports/${created.body.id}`),
      (r) => r.body.status === 'done',
    );
    expect(report.body).toMatchObject({ added: 3, unreachable: 2 });
    expect((await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}`)).body.unreachable).toMatchObject({
      total: 2,
      byReason: { no_phone: 2 },
    });
  });

  test('a team reply where the contact has no external ID is 409 CONTACT_UNREACHABLE, never posted with an empty toId', async () => {
    const { account, hook, listId } = await setUp();
    const contact = (
      await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone(), firstName: 'Ed' } })
    ).body;
    expect(
      (await api(ctx.gw, account, 'POST', `lists/${listId}/contacts`, { body: { contactId: contact.id } })).status,
    ).toBe(201);
    const conversation = await poll(
      async () =>
        ((await api(ctx.gw, account, 'GET', 'conversations')).body.data as any[]).find(
          (c) => c.contactId === contact.id,
        ),
      (c) => c?.opening?.status === 'skipped',
    );
    const res = await api(ctx.gw, account, 'POST', `contacts/${contact.id}/messages`, {
      body: { body: 'Hello?', conversationId: conversation.id },
    });
    expectApiError(res, 409, 'CONTACT_UNREACHABLE');
    expect(res.body.error.message).toMatch(/no external ID on the custom channel "livechat"/);
    expect((await api(ctx.gw, account, 'GET', `contacts/${contact.id}/messages`)).body.data).toEqual([]);
    expect(replies(hook)).toEqual([]);
  });
});

describe("a fromId that is a known contact's phone or email is that contact", () => {
  test.each([
    ['phone', (p: string) => `${p.slice(0, 2)} ${p.slice(2)}`],
    ['email', () => 'Lead.Person@Example.com'],
  ])(
    'by %s: its name and campaign apply, the bot answers in its campaign, replies go to the fromId as sent',
    async (kind, fromIdOf) => {
      const { account, hook, listId, campaignId } = await setUp();
      const phone = uniquePhone();
      const fields = kind === 'phone' ? { phone } : { email: 'lead.person@example.com' };
      const known = (
        await api(ctx.gw, account, 'POST', 'contacts', {
          body: { ...fields, firstName: 'Lia', externalIds: kind === 'email' ? { crm: 'c-1' } : undefined },
        })
      ).body;
      await api(ctx.gw, account, 'POST', `lists/${listId}/contacts`, { body: { contactId: known.id } });
      const fromId = fromIdOf(phone);
      const res = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
        body: {
          customData: {
            messageSid: `m-${kind}`,
            fromId,
            toId: 'biz',
            channel: 'livechat',
            body: 'What are your opening hours?',
          },
        },
      });
      expect(res.status).toBe(200);
      const message = (await api(ctx.gw, account, 'GET', `messages/${res.body.messageId}`)).body;
      expect(message.contactId).toBe(known.id);
      const contact = (await api(ctx.gw, account, 'GET', `contacts/${known.id}`)).body;
      expect(contact).toMatchObject({ firstName: 'Lia', externalIds: expect.objectContaining({ livechat: fromId }) });

      await poll(
        async () => replies(hook),
        (r) => r.some((x) => x.body.includes('9am')),
      );
      const answer = replies(hook).find((x) => x.body.includes('9am'));
      expect(answer).toMatchObject({ contactId: known.id, toId: fromId, channel: 'livechat' });
      const conversation = ((await api(ctx.gw, account, 'GET', 'conversations')).body.data as any[]).find(
        (c) => c.contactId === known.id,
      );
      expect(conversation.campaignId).toBe(campaignId);
    },
  );
});

describe('a new contact made by a fromId that is an email or a phone holds it: written another way next time, it is found', () => {
  const write = (account: TestAccount, fromId: string, sid: string) =>
    api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
      body: { customData: { messageSid: sid, fromId, toId: 'inbox', channel: 'email', body: 'Hello' } },
    });
  const contactOf = async (account: TestAccount, res: { status: number; body: any }) => {
    expect(res.status).toBe(200);
    return (await api(ctx.gw, account, 'GET', `messages/${res.body.messageId}`)).body.contactId as string;
  };

  test('an email, in another case; a phone with its country code, spaced otherwise, and by SMS', async () => {
    const account = await createAccount(ctx.gw);
    const ana = await contactOf(account, await write(account, 'Ana.Lima@Example.com', 'e-1'));
    expect(await contactOf(account, await write(account, 'ana.lima@example.com', 'e-2'))).toBe(ana);
    expect((await api(ctx.gw, account, 'GET', `contacts/${ana}`)).body).toMatchObject({
      email: 'ana.lima@example.com',
      phone: '',
    });

    const phone = uniquePhone();
    const spaced = `${phone.slice(0, 2)} ${phone.slice(2, 5)} ${phone.slice(5)}`;
    const ben = await contactOf(account, await write(account, spaced, 'p-1'));
    expect(await contactOf(account, await write(account, phone, 'p-2'))).toBe(ben);
    expect((await api(ctx.gw, account, 'GET', `contacts/${ben}`)).body).toMatchObject({ phone, email: '' });
    // One contact per phone: the number writing in by SMS, or created, is the same person.
    expect((await api(ctx.gw, account, 'POST', 'channels/sms/incoming', { body: { phone, body: 'Hi' } })).status).toBe(
      200,
    );
    const created = await api(ctx.gw, account, 'POST', 'contacts', { body: { phone } });
    expect(created.body.id).toBe(ben);
    const conversations = (await api(ctx.gw, account, 'GET', 'conversations')).body.data as any[];
    expect(new Set(conversations.map((c) => c.contactId))).toEqual(new Set([ana, ben]));
  });

  test('a number without its country code (a Telegram user ID) is no phone, even under a default country', async () => {
    const account = await createAccount(ctx.gw);
    expect((await api(ctx.gw, account, 'PUT', 'settings', { body: { defaultCountry: 'US' } })).status).toBe(200);
    const visitor = await contactOf(account, await write(account, '4155550123', 't-1'));
    expect((await api(ctx.gw, account, 'GET', `contacts/${visitor}`)).body).toMatchObject({ phone: '' });
    const owner = await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: '+14155550123' } });
    expect(owner.status).toBe(201);
    expect(owner.body.id).not.toBe(visitor);
  });
});

test('an ID an earlier release left registered to a contact that is gone is free: its visitor writes again and again, and is one contact', async () => {
  const account = await createAccount(ctx.gw);
  const visitor = `visitor-${Date.now()}`;
  const first = (await api(ctx.gw, account, 'POST', 'contacts', { body: { externalIds: { livechat: visitor } } })).body;
  const second = (
    await api(ctx.gw, account, 'POST', 'contacts', { body: { externalIds: { livechat: `${visitor}-b` } } })
  ).body;
  expect(
    (await api(ctx.gw, account, 'POST', `contacts/${second.id}/merge`, { body: { contactId: first.id } })).status,
  ).toBe(200);
  // As an earlier release's second merge or erasure left it: the ID registered to a contact that is gone.
  await ctx.gw.engine.store.transact(async (tx) => {
    const [registration] = await tx.find<{ id: string; contactId: string }>('external_ids', 'value', [
      account.id,
      visitor,
    ]);
    await tx.update<{ id: string; contactId: string }>('external_ids', registration!.id, { contactId: first.id });
  });
  const write = async (body: string) => {
    const res = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
      body: {
        customData: { messageSid: `${visitor}-${body}`, fromId: visitor, toId: 'biz', channel: 'livechat', body },
      },
    });
    expect(res.status).toBe(200);
    return (await api(ctx.gw, account, 'GET', `messages/${res.body.messageId}`)).body.contactId as string;
  };
  const contactId = await write('hello?');
  expect([first.id, second.id]).not.toContain(contactId);
  expect(await write('anyone there?')).toBe(contactId);
  const created = await api(ctx.gw, account, 'POST', 'contacts', { body: { externalIds: { crm: visitor } } });
  expect({ status: created.status, id: created.body.id }).toEqual({ status: 200, id: contactId });
});
