import { consoleAccount, teamMember, withSession } from '../console/support';
import { tempDir } from '../helpers/gateway';
import { fileGateways } from '../helpers/in-process';
import { everything, found, type Traces } from '../helpers/traces';
import { forgetDone, openStoreOf } from '../helpers/stopped-store';
import { jobsWithStatus, processed } from '../helpers/inbound';
import { twilio, whatsapp } from '../helpers/provider-accounts';
import { createHmac } from 'node:crypto';
import {
  api,
  createAccount,
  dataUri,
  request,
  expectApiError,
  png,
  poll,
  Receiver,
  untilIdle,
  uniquePhone,
  type TestAccount,
  type TestGateway,
} from './api-support';

/**
 * Issue 47: GET /v1/contacts/{id}/export (access) and DELETE /v1/contacts/{id} (erasure). A contact lives a whole
 * life first (a list, SMS and a custom channel, a file, a team reply, webhook deliveries, STOP); its export holds all
 * of it; after its erasure and a clean stop, nothing readable of it is left in any file of the data dir or any
 * table of the database, and its opt-out still holds when its number comes back.
 */
const { gateway, closing: receivers } = fileGateways({ LEADCHAT_JOB_POLL: '100ms' });

interface Life {
  account: TestAccount;
  contact: { id: string; phone: string; email: string };
  list: { id: string };
  /** What of the contact must be found before its erasure and never after. */
  traces: Traces;
}

/** A contact with something of everything: what the export must hold and the erasure must remove. */
async function live(gw: TestGateway, account: TestAccount): Promise<Life> {
  const hook = await Receiver.start();
  receivers.push(hook);
  expect(
    (
      await api(gw, account, 'POST', 'webhooks', {
        body: { url: hook.url, events: ['message_received', 'handoff', 'opt_out'] },
      })
    ).status,
  ).toBe(201);
  expect((await api(gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } })).status).toBe(200);
  const phone = uniquePhone();
  const email = 'zephyrine.quillfeather@clinic.example';
  const contact = (
    await api(gw, account, 'POST', 'contacts', {
      body: {
        firstName: 'Zephyrine',
        lastName: 'Quillfeather',
        phone,
        email,
        customFields: { allergy: 'penicillin-xq7' },
      },
    })
  ).body;
  const list = (await api(gw, account, 'POST', 'lists', { body: { name: 'Patients' } })).body;
  expect(
    (await api(gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: contact.id } })).status,
  ).toBe(201);
  // Imported again from a file whose row holds an unreadable email, then repeats: the report names the contact.
  const csv = `Phone,Email\n${phone},quill@@broken-YEW-5512\n${phone},\n`;
  expect(
    (
      await api(gw, account, 'POST', `lists/${list.id}/imports`, {
        body: { csv, columns: { phone: 'Phone', email: 'Email' } },
      })
    ).status,
  ).toBe(202);
  await untilIdle(gw);
  const report = (await api(gw, account, 'GET', `lists/${list.id}/imports`)).body.data[0];
  expect(report).toMatchObject({
    rowWarnings: [{ value: 'quill@@broken-YEW-5512', contactId: contact.id }],
    rowDuplicates: [{ contactId: contact.id }],
  });
  const file = png(16, 16);
  const sms = 'my appointment code is ORCHID-7731';
  expect((await api(gw, account, 'POST', 'channels/sms/incoming', { body: { phone, body: sms } })).status).toBeLessThan(
    300,
  );
  // A custom channel's fromId that is the contact's email finds the contact.
  const chat = await api(gw, account, 'POST', 'incoming_custom_channel_message', {
    body: {
      customData: {
        messageSid: `sid-${Date.now()}`,
        fromId: email,
        toId: 'clinic',
        body: 'here is my x-ray LILAC-4420',
        mediaUrl: dataUri('image/png', file),
        mediaContentType: 'image/png',
        channel: 'webchat',
      },
    },
  });
  expect(chat.status).toBe(200);
  // Sent with an Idempotency-Key: the answer kept for a repetition holds the reply too.
  const reply = await api(gw, account, 'POST', `contacts/${contact.id}/messages`, {
    body: { body: 'Thanks Zephyrine, see you at TULIP-0091' },
    headers: { 'Idempotency-Key': `reply-${contact.id}` },
  });
  expect(reply.status).toBe(201);
  // The team's note on the chat, with an Idempotency-Key too: data about the person, never sent to them.
  const { conversationId } = (await api(gw, account, 'GET', `messages/${chat.body.messageId}`)).body;
  const note = await api(gw, account, 'POST', `conversations/${conversationId}/notes`, {
    body: { text: 'Called twice about MAGNOLIA-3318' },
    headers: { 'Idempotency-Key': `note-${contact.id}` },
  });
  expect(note.status).toBe(201);
  expect(
    (await api(gw, account, 'POST', 'channels/sms/incoming', { body: { phone, body: 'STOP' } })).status,
  ).toBeLessThan(300);
  await poll(
    async () => hook.requests.filter((r) => r.body?.contactId === contact.id).length,
    (n) => n >= 3,
  );
  await untilIdle(gw);
  return {
    account,
    contact,
    list,
    traces: {
      name: 'Quillfeather',
      'name search key': 'zephyrin',
      email,
      phone,
      'phone digits': phone.slice(1),
      'custom field': 'penicillin-xq7',
      'SMS text': 'ORCHID-7731',
      'chat text': 'LILAC-4420',
      'team reply': 'TULIP-0091',
      'team note': 'MAGNOLIA-3318',
      'import warning': 'YEW-5512',
      file,
    },
  };
}

test("the export holds the contact's whole life: conversations, messages, files as links, lists, import rows, consent, deliveries", async () => {
  const gw = await gateway();
  const account = await createAccount(gw);
  const { contact, list } = await live(gw, account);
  const res = await api(gw, account, 'GET', `contacts/${contact.id}/export`);
  expect(res.status).toBe(200);
  expect(res.headers['content-disposition']).toBe(`attachment; filename="contact-${contact.id}.json"`);
  const data = res.body;
  expect(data.contact).toMatchObject({
    id: contact.id,
    firstName: 'Zephyrine',
    lastName: 'Quillfeather',
    phone: contact.phone,
    email: contact.email,
    customFields: { allergy: 'penicillin-xq7' },
  });
  expect(data.conversations.map((c: { channel: string }) => c.channel).sort()).toEqual(['custom', 'sms']);
  const bodies = data.messages.map((m: { body: string }) => m.body);
  expect(bodies).toEqual(
    expect.arrayContaining([
      'my appointment code is ORCHID-7731',
      'here is my x-ray LILAC-4420',
      'Thanks Zephyrine, see you at TULIP-0091',
      'STOP',
    ]),
  );
  expect(data.messages.every((m: { contactId: string }) => m.contactId === contact.id)).toBe(true);
  expect(data.notes).toEqual([
    expect.objectContaining({ contactId: contact.id, text: 'Called twice about MAGNOLIA-3318', authorId: null }),
  ]);
  expect(data.files).toEqual([
    expect.objectContaining({
      id: expect.stringMatching(/^med_/),
      url: expect.stringMatching(/^\/v1\/media\/med_/),
      contentType: 'image/png',
      size: expect.any(Number),
    }),
  ]);
  expect((await api(gw, account, 'GET', data.files[0].url)).status).toBe(200);
  expect(data.lists).toEqual([{ id: list.id, name: 'Patients', addedAt: expect.any(String), source: 'api' }]);
  expect(data.consent).toEqual([{ change: 'opt_out', at: expect.any(String), channel: 'sms', keyword: 'stop' }]);
  // The import report's rows naming the contact, the text the import left out among them, as its erasure removes them.
  expect(data.imports).toEqual([
    {
      id: expect.stringMatching(/^imp_/),
      listId: list.id,
      createdAt: expect.any(String),
      rowWarnings: [expect.objectContaining({ row: 2, field: 'email', value: 'quill@@broken-YEW-5512' })],
      rowDuplicates: [{ row: 3, of: 2, contactId: contact.id }],
    },
  ]);
  const events = data.deliveries.map((d: { event: string }) => d.event);
  expect(events).toEqual(expect.arrayContaining(['message_received', 'opt_out']));
  expect(data.deliveries.every((d: { payload: { contactId?: string } }) => d.payload.contactId === contact.id)).toBe(
    true,
  );

  // Another account's contact is a 404, like one that does not exist.
  const other = await createAccount(gw);
  expectApiError(await api(gw, other, 'GET', `contacts/${contact.id}/export`), 404, 'CONTACT_NOT_FOUND');
  expectApiError(await api(gw, account, 'GET', 'contacts/ct_missing/export'), 404, 'CONTACT_NOT_FOUND');
}, 60_000);

test('erasure leaves nothing readable of the contact in the data dir or the database after a clean stop; an opt-out still holds', async () => {
  const dataDir = tempDir();
  let gw = await gateway(dataDir);
  const account = await createAccount(gw);
  const life = await live(gw, account);
  const neighbour = (await api(gw, account, 'POST', 'contacts', { body: { firstName: 'Stays', phone: uniquePhone() } }))
    .body;
  expect(
    (await api(gw, account, 'POST', `lists/${life.list.id}/contacts`, { body: { contactId: neighbour.id } })).status,
  ).toBe(201);

  // Before: every trace is somewhere.
  const before = found(await everything(gw), life.traces);
  for (const what of Object.keys(life.traces)) expect(before.some((hit) => hit.startsWith(`${what} in `))).toBe(true);

  const erased = await api(gw, account, 'DELETE', `contacts/${life.contact.id}`);
  expect({ status: erased.status, text: erased.text }).toEqual({ status: 204, text: '' });
  expectApiError(await api(gw, account, 'GET', `contacts/${life.contact.id}`), 404, 'CONTACT_NOT_FOUND');
  expectApiError(await api(gw, account, 'DELETE', `contacts/${life.contact.id}`), 404, 'CONTACT_NOT_FOUND');
  expect((await api(gw, account, 'GET', 'contacts', { query: { q: 'zephyrine' } })).body.data).toEqual([]);
  expectApiError(
    await api(gw, account, 'GET', 'contacts', { query: { phoneNumber: life.contact.phone } }),
    404,
    'CONTACT_NOT_FOUND',
  );
  expect(
    (await api(gw, account, 'GET', 'conversations')).body.data.map((c: { contactId: string }) => c.contactId),
  ).not.toContain(life.contact.id);
  expect(
    (await api(gw, account, 'GET', `lists/${life.list.id}/contacts`)).body.data.map((c: { id: string }) => c.id),
  ).toEqual([neighbour.id]);
  // The import's report keeps its counts, and names the contact no more.
  expect((await api(gw, account, 'GET', `lists/${life.list.id}/imports`)).body.data[0]).toMatchObject({
    warnings: 1,
    duplicates: 1,
    rowWarnings: [],
    rowDuplicates: [{ row: 3, contactId: null }],
  });
  await untilIdle(gw);

  // After the next clean stop: nothing.
  expect(await gw.stop()).toBe(0);
  expect(found(await everything(gw), life.traces)).toEqual([]);

  // The number comes back: the new contact is opted out, and nothing can be sent to it.
  gw = await gateway(dataDir);
  const back = await api(gw, account, 'POST', 'contacts', { body: { phone: life.contact.phone, firstName: 'Back' } });
  expect(back.status).toBe(201);
  expect(back.body.id).not.toBe(life.contact.id);
  expect(back.body.optOut).toEqual({ at: expect.any(String), channel: 'sms', keyword: 'stop' });
  expectApiError(
    await api(gw, account, 'POST', `contacts/${back.body.id}/messages`, { body: { body: 'Welcome back' } }),
    409,
  );
  // Its email, given to a contact later, opts that one out too; the neighbour was never opted out.
  const byEmail = await api(gw, account, 'POST', 'contacts', {
    body: { phone: uniquePhone(), email: life.contact.email },
  });
  expect(byEmail.body.optOut).toMatchObject({ keyword: 'stop' });
  expect((await api(gw, account, 'GET', `contacts/${neighbour.id}`)).body.optOut).toBeUndefined();

  // A contact corrected to the erased one's address (freed again: the contact that had it is erased too) is opted
  // out as if it had said STOP, its conversation too.
  expect((await api(gw, account, 'DELETE', `contacts/${byEmail.body.id}`)).status).toBe(204);
  const writer = `visitor-${Date.now()}`;
  const chat = await api(gw, account, 'POST', 'incoming_custom_channel_message', {
    body: { customData: { messageSid: `sid-${writer}`, fromId: writer, toId: 'clinic', body: 'hi', channel: 'web' } },
  });
  const writerId = (await api(gw, account, 'GET', `messages/${chat.body.messageId}`)).body.contactId;
  const corrected = await api(gw, account, 'PATCH', `contacts/${writerId}`, { body: { email: life.contact.email } });
  expect(corrected.body.optOut).toMatchObject({ keyword: 'stop' });
  const conversations = await api(gw, account, 'GET', 'conversations', { query: { contactId: writerId } });
  expect(conversations.body.data.map((c: { status: string }) => c.status)).toEqual(['opted_out']);
}, 90_000);

test('a contact who never opted out, or opted in again, leaves no opt-out behind; its number comes back as a new contact', async () => {
  const gw = await gateway();
  const account = await createAccount(gw);
  const phone = uniquePhone();
  const contact = (await api(gw, account, 'POST', 'contacts', { body: { phone, firstName: 'Plain' } })).body;
  expect((await api(gw, account, 'DELETE', `contacts/${contact.id}`)).status).toBe(204);
  const back = await api(gw, account, 'POST', 'contacts', { body: { phone } });
  expect(back.status).toBe(201);
  expect(back.body.optOut).toBeUndefined();

  // STOP, erased, back opted out; START, erased again: the person's latest word was START.
  const say = (body: string) => api(gw, account, 'POST', 'channels/sms/incoming', { body: { phone, body } });
  expect((await say('STOP')).status).toBeLessThan(300);
  expect((await api(gw, account, 'DELETE', `contacts/${back.body.id}`)).status).toBe(204);
  const third = (await api(gw, account, 'POST', 'contacts', { body: { phone } })).body;
  expect(third.optOut).toMatchObject({ keyword: 'stop' });
  expect((await say('START')).status).toBeLessThan(300);
  expect((await api(gw, account, 'GET', `contacts/${third.id}`)).body.optOut).toBeUndefined();
  expect((await api(gw, account, 'DELETE', `contacts/${third.id}`)).status).toBe(204);
  const fourth = (await api(gw, account, 'POST', 'contacts', { body: { phone } })).body;
  expect(fourth.optOut).toBeUndefined();
}, 60_000);

test("erasure: another account's contact → 404 and it stays; an agent → 403 FORBIDDEN; an admin may", async () => {
  const gw = await gateway();
  const owner = await consoleAccount(gw);
  const other = await createAccount(gw);
  const theirs = (await api(gw, other, 'POST', 'contacts', { body: { phone: uniquePhone() } })).body;
  expectApiError(await api(gw, owner, 'DELETE', `contacts/${theirs.id}`), 404, 'CONTACT_NOT_FOUND');
  expect((await api(gw, other, 'GET', `contacts/${theirs.id}`)).status).toBe(200);

  const mine = (await api(gw, owner, 'POST', 'contacts', { body: { phone: uniquePhone() } })).body;
  const agent = await teamMember(gw, owner, 'agent');
  const admin = await teamMember(gw, owner, 'admin');
  const as = (session: typeof agent, method: string, url: string) =>
    withSession(gw, session, method, url, { headers: { origin: gw.url } });
  expectApiError(await as(agent, 'DELETE', `/v1/contacts/${mine.id}`), 403, 'FORBIDDEN');
  expectApiError(await as(agent, 'GET', `/v1/contacts/${mine.id}/export`), 403, 'FORBIDDEN');
  expect((await api(gw, owner, 'GET', `contacts/${mine.id}`)).status).toBe(200);
  expect((await as(admin, 'GET', `/v1/contacts/${mine.id}/export`)).status).toBe(200);
  expect((await as(admin, 'DELETE', `/v1/contacts/${mine.id}`)).status).toBe(204);
  expectApiError(await api(gw, owner, 'GET', `contacts/${mine.id}`), 404, 'CONTACT_NOT_FOUND');
}, 60_000);

test('a hand-off delivery an earlier release stored, naming its contact only in its payload, goes with the contact', async () => {
  const dataDir = tempDir();
  let gw = await gateway(dataDir);
  const account = await createAccount(gw);
  const hook = await Receiver.start();
  receivers.push(hook);
  expect((await api(gw, account, 'POST', 'webhooks', { body: { url: hook.url, events: ['handoff'] } })).status).toBe(
    201,
  );
  const said = await api(gw, account, 'POST', 'incoming_custom_channel_message', {
    body: {
      customData: {
        messageSid: `sid-${Date.now()}`,
        fromId: 'old-visitor',
        toId: 'clinic',
        body: 'I chipped a tooth HAZEL-3318',
      },
    },
  });
  const { contactId } = (await api(gw, account, 'GET', `messages/${said.body.messageId}`)).body;
  await poll(
    async () => hook.requests.length,
    (n) => n >= 1,
  );
  await untilIdle(gw);
  expect(await gw.stop()).toBe(0);

  // As the earlier release left it: the delivery names its contact in its payload only, and no start named it since.
  const store = await openStoreOf(gw.env);
  const old = (await store.scan<{ id: string; payload: { contactId?: string } }>('deliveries')).filter(
    (d) => d.payload.contactId === contactId,
  );
  expect(old).toHaveLength(1);
  await store.transact(async (tx) => {
    await tx.update<{ id: string; contactId: string | null }>('deliveries', old[0]!.id, { contactId: null });
  });
  await store.close();
  await forgetDone(gw.env, ['deliveries-by-contact-1']);

  gw = await gateway(dataDir);
  await untilIdle(gw);
  expect((await api(gw, account, 'DELETE', `contacts/${contactId}`)).status).toBe(204);
  expect(await gw.stop()).toBe(0);
  const after = await openStoreOf(gw.env);
  expect(await after.get('deliveries', old[0]!.id)).toBeUndefined();
  await after.close();
}, 60_000);

test('an ID an erased contact opted out with, given to a contact by a creation or an import row, holds it as a STOP would: its conversations opted out, nothing waiting for it', async () => {
  const gw = await gateway();
  const account = await createAccount(gw);
  const list = (await api(gw, account, 'POST', 'lists', { body: { name: 'Leads' } })).body;
  const campaign = await api(gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Funnel',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Hi!',
      triggerOnNewContacts: true,
      status: 'live',
      followUps: { enabled: true, steps: [{ after: '1d', body: 'Still there?' }] },
    },
  });
  expect(campaign.status).toBe(201);
  const write = async (fromId: string, channel: string, body: string) => {
    const sid = `sid-${fromId}-${body}-${Date.now()}`;
    const res = await api(gw, account, 'POST', 'incoming_custom_channel_message', {
      body: { customData: { messageSid: sid, fromId, toId: 'clinic', body, channel } },
    });
    expect(res.status).toBe(200);
    return (await api(gw, account, 'GET', `messages/${res.body.messageId}`)).body.contactId as string;
  };
  /** A visitor on the web chat who said STOP and was erased: the ID is held opted out. */
  const erasedVisitor = async () => {
    const visitor = `visitor-${uniquePhone().slice(-7)}`;
    const id = await write(visitor, 'webchat', 'STOP');
    expect((await api(gw, account, 'DELETE', `contacts/${id}`)).status).toBe(204);
    return visitor;
  };
  /** A contact who wrote on the CRM (the team answers there), then joined the list: its opening at once or in an hour. */
  const lead = async (delay?: string) => {
    const phone = uniquePhone();
    const { id } = (await api(gw, account, 'POST', 'contacts', { body: { phone } })).body;
    expect(await write(phone, 'crm', 'hello')).toBe(id);
    const joined = await api(gw, account, 'POST', `lists/${list.id}/contacts`, {
      body: { contactId: id, ...(delay && { delay }) },
    });
    expect(joined.status).toBe(201);
    await untilIdle(gw);
    return { id, phone };
  };
  const conversationsOf = async (contactId: string) =>
    (await api(gw, account, 'GET', 'conversations', { query: { contactId } })).body.data as Array<{
      status: string;
      next: unknown;
      opening: { status: string; reason: string | null } | null;
    }>;
  const expectHeld = async (contactId: string) => {
    expect((await api(gw, account, 'GET', `contacts/${contactId}`)).body.optOut).toMatchObject({ keyword: 'stop' });
    const conversations = await conversationsOf(contactId);
    expect(conversations.map((c) => [c.status, c.next])).toEqual([
      ['opted_out', null],
      ['opted_out', null],
    ]);
    return conversations;
  };

  // A creation naming the contact's phone and the erased visitor's ID: its opening, an hour away, is not sent.
  const waiting = await lead('1h');
  expect((await conversationsOf(waiting.id)).map((c) => c.next)).toContainEqual(
    expect.objectContaining({ kind: 'opening' }),
  );
  const visitor = await erasedVisitor();
  const created = await api(gw, account, 'POST', 'contacts', {
    body: { phone: waiting.phone, externalIds: { webchat: visitor } },
  });
  expect(created.status).toBe(200);
  expect(created.body.id).toBe(waiting.id);
  expect((await expectHeld(waiting.id)).map((c) => c.opening)).toContainEqual(
    expect.objectContaining({ status: 'skipped', reason: 'opted_out' }),
  );

  // An import row doing the same: the follow-up after its opening is not sent.
  const answered = await lead();
  expect((await conversationsOf(answered.id)).map((c) => c.next)).toContainEqual(
    expect.objectContaining({ kind: 'follow_up', step: 0 }),
  );
  const another = await erasedVisitor();
  const imported = await api(gw, account, 'POST', `lists/${list.id}/imports`, {
    body: { contacts: [{ phone: answered.phone, externalIds: { webchat: another } }] },
  });
  expect(imported.status).toBe(202);
  await untilIdle(gw);
  await expectHeld(answered.id);
}, 60_000);

test("a START after an erased contact's opt-out came back is the person's latest word: a merge later brings no opt-out back", async () => {
  const gw = await gateway();
  const account = await createAccount(gw);
  const phone = uniquePhone();
  const say = (body: string) => api(gw, account, 'POST', 'channels/sms/incoming', { body: { phone, body } });
  expect((await say('STOP')).status).toBeLessThan(300);
  const first = (await api(gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } })).body;
  expect((await api(gw, account, 'DELETE', `contacts/${first.id}`)).status).toBe(204);
  const back = (await api(gw, account, 'POST', 'contacts', { body: { phone } })).body;
  expect(back.optOut).toMatchObject({ keyword: 'stop' });
  expect((await say('START')).status).toBeLessThan(300);
  // The same person, known by email too: merged into that contact, the number comes with its START.
  const known = (await api(gw, account, 'POST', 'contacts', { body: { email: `start-${Date.now()}@example.com` } }))
    .body;
  const merged = await api(gw, account, 'POST', `contacts/${known.id}/merge`, { body: { contactId: back.id } });
  expect(merged.status).toBe(200);
  expect(merged.body).toMatchObject({ phone, optIn: expect.objectContaining({ keyword: 'start' }) });
  expect(merged.body.optOut).toBeUndefined();
}, 60_000);

test("a provider's entry naming the contact that could never be processed, kept for the operator, goes with its erasure", async () => {
  const gw = await gateway(tempDir(), { LEADCHAT_PUBLIC_URL: 'https://chat.example.test' });
  const account = await createAccount(gw);
  expect((await api(gw, account, 'PUT', 'channels/whatsapp', { body: whatsapp })).status).toBe(200);
  /** A WhatsApp message from `phone` as Meta posts it; without its id, it can never be processed. */
  const post = (phone: string, body: string, id?: string, name = 'Perpetua Lindqvist') => {
    const raw = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'WABA',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { phone_number_id: whatsapp.phoneNumberId },
                contacts: [{ wa_id: phone.slice(1), profile: { name } }],
                messages: [
                  { from: phone.slice(1), ...(id && { id }), timestamp: '1700000000', type: 'text', text: { body } },
                ],
              },
            },
          ],
        },
      ],
    });
    const signature = `sha256=${createHmac('sha256', whatsapp.appSecret).update(raw).digest('hex')}`;
    return processed(
      gw,
      request(gw, 'POST', `/v1/channels/whatsapp/${account.id}/webhook`, {
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
        body: raw,
      }),
    );
  };
  const [phone, neighbour] = [uniquePhone(), uniquePhone()];
  expect((await post(phone, 'my first message', `wamid.${Date.now()}`)).status).toBe(200);
  expect((await post(phone, 'my insurance number is WREN-8841')).status).toBe(200);
  expect((await post(neighbour, 'a message of someone else', undefined, 'Someone Else')).status).toBe(200);
  const deadEntries = async () =>
    (await jobsWithStatus(gw, 'dead')).filter((j) => j.kind === 'inbound' && j.accountId === account.id);
  expect((await deadEntries()).map((j) => j.data.entry.raw.message.from)).toEqual([phone.slice(1), neighbour.slice(1)]);

  const contact = (await api(gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } })).body;
  expect((await api(gw, account, 'DELETE', `contacts/${contact.id}`)).status).toBe(204);
  // The other person's entry stays for the operator.
  expect((await deadEntries()).map((j) => j.data.entry.raw.message.from)).toEqual([neighbour.slice(1)]);
  expect(await gw.stop()).toBe(0);
  expect(found(await everything(gw), { phone: phone.slice(1), name: 'Perpetua', 'message text': 'WREN-8841' })).toEqual(
    [],
  );
}, 60_000);

test('what an erasure leaves to drop the entries taken before it, keyed hashes of its addresses, is forgotten after 7 days', async () => {
  const gw = await gateway();
  const account = await createAccount(gw);
  const contact = (await api(gw, account, 'POST', 'contacts', { body: { phone: uniquePhone() } })).body;
  expect((await api(gw, account, 'DELETE', `contacts/${contact.id}`)).status).toBe(204);
  const erasures = () => gw.engine.store.scan<{ id: string; erasedAt: string }>('erasures');
  expect(await erasures()).toEqual([{ id: expect.stringMatching(/^ers_[0-9a-f]{64}$/), erasedAt: expect.any(String) }]);

  // The hourly housekeeping forgets them.
  await gw.advance('6d23h');
  await gw.drain();
  expect(await erasures()).toHaveLength(1);
  await gw.advance('2h');
  await gw.drain();
  expect(await erasures()).toEqual([]);
}, 60_000);

test('the rows naming the contact of an import sent before its erasure and applied after it are refused, CONTACT_ERASED; an import sent after it makes the contact again', async () => {
  // Twilio holds the first 8 sends: the job runner's 8 slots, so an import sent then waits for one to be freed.
  let sends = 0;
  const twilioApi = await Receiver.start((_, req) =>
    req.path.endsWith('/Messages.json') && ++sends <= 8
      ? undefined
      : { status: 201, body: JSON.stringify({ sid: `SM${String(sends).padStart(32, '0')}`, status: 'queued' }) },
  );
  receivers.push(twilioApi);
  const gw = await gateway(tempDir(), { LEADCHAT_TWILIO_API_URL: twilioApi.url });
  const account = await createAccount(gw);
  expect((await api(gw, account, 'PUT', 'channels/twilio', { body: twilio })).status).toBe(200);
  const list = (await api(gw, account, 'POST', 'lists', { body: { name: 'Patients' } })).body;
  const campaign = await api(gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Recall',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Time for your check-up!',
      triggerOnNewContacts: true,
      status: 'live',
      sendRate: '6000/m',
    },
  });
  expect(campaign.status).toBe(201);
  const importing = async (contacts: object[]) => {
    const res = await api(gw, account, 'POST', `lists/${list.id}/imports`, { body: { contacts } });
    expect(res.status).toBe(202);
    return res.body.id as string;
  };
  const report = async (id: string) => (await api(gw, account, 'GET', `imports/${id}`)).body;
  const done = async (id: string) =>
    (await poll(
      () => report(id),
      (r) => r.status === 'done',
      20_000,
    )) as any;
  const person = { phone: uniquePhone(), firstName: 'Zephyrine', email: 'zephyrine@clinic.example' };
  const erased = (await api(gw, account, 'POST', 'contacts', { body: person })).body;

  // The list's Live campaign sends 8 openings, 3 at once and the others 10 ms apart, each held by Twilio.
  await done(await importing(Array.from({ length: 8 }, () => ({ phone: uniquePhone() }))));
  await gw.advance('1s');
  await twilioApi.waitFor(8);
  const sent = await importing([person, { phone: uniquePhone(), firstName: 'Other' }, { phone: person.phone }]);
  expect((await api(gw, account, 'DELETE', `contacts/${erased.id}`)).status).toBe(204);
  expect(await report(sent)).toMatchObject({ status: 'queued', processed: 0 });

  for (let i = 0; i < 8; i++) twilioApi.release(201);
  expect(await done(sent)).toMatchObject({ added: 1, duplicates: 0, rejected: 2 });
  expect((await report(sent)).errors).toEqual(
    [1, 3].map((row) => ({ row, code: 'CONTACT_ERASED', message: expect.stringContaining('was erased') })),
  );
  expect((await api(gw, account, 'GET', 'contacts', { query: { phoneNumber: person.phone } })).status).toBe(404);

  // The user's new word: imported again after the erasure, the person is a contact again.
  expect(await done(await importing([person]))).toMatchObject({ added: 1, rejected: 0 });
  const again = (await api(gw, account, 'GET', 'contacts', { query: { phoneNumber: person.phone } })).body;
  expect(again).toMatchObject({ firstName: 'Zephyrine', email: person.email });
  expect(again.id).not.toBe(erased.id);
}, 60_000);

test('the export holds what the campaigns recorded about the contact, its opening, funnel steps and reach, and the questions their bots could not answer', async () => {
  const gw = await gateway();
  const account = await createAccount(gw);
  const hook = await Receiver.start();
  receivers.push(hook);
  expect((await api(gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } })).status).toBe(200);
  const list = (await api(gw, account, 'POST', 'lists', { body: { name: 'Patients' } })).body;
  const campaign = async (body: Record<string, unknown>) => {
    const res = await api(gw, account, 'POST', 'campaigns', {
      body: { listId: list.id, openingMessage: 'Hi!', triggerOnNewContacts: true, status: 'live', ...body },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const chat = await campaign({
    name: 'Chat',
    channel: 'custom',
    customChannel: 'chat',
    bot: { faqs: [{ question: 'How much is a cleaning?', answer: 'A cleaning costs $90.' }] },
  });
  const sms = await campaign({ name: 'Texts', channel: 'sms' });
  const visitor = `visitor-${uniquePhone().slice(-7)}`;
  const contact = (await api(gw, account, 'POST', 'contacts', { body: { externalIds: { chat: visitor } } })).body;
  expect(
    (await api(gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: contact.id } })).status,
  ).toBe(201);
  await untilIdle(gw);
  const asked = await api(gw, account, 'POST', 'incoming_custom_channel_message', {
    body: {
      customData: {
        messageSid: `sid-${visitor}`,
        fromId: visitor,
        toId: 'clinic',
        body: 'Do you take the MERIDIAN-44 insurance?',
        channel: 'chat',
      },
    },
  });
  expect(asked.status).toBe(200);
  await untilIdle(gw);

  const data = (await api(gw, account, 'GET', `contacts/${contact.id}/export`)).body;
  const records = Object.fromEntries(data.campaigns.map((c: { id: string }) => [c.id, c]));
  expect(Object.keys(records).sort()).toEqual([chat, sms].sort());
  expect(records[chat]).toMatchObject({ opening: { status: 'sent', reason: null }, unreachable: [] });
  expect(records[chat].steps.map((s: { step: string }) => s.step)).toEqual([
    'added',
    'openingSent',
    'replied',
    'handedOff',
  ]);
  expect(records[sms]).toMatchObject({ opening: { status: 'skipped', reason: 'no_phone' }, unreachable: ['no_phone'] });
  expect(data.unanswered).toEqual([
    {
      campaignId: chat,
      messageId: asked.body.messageId,
      question: 'Do you take the MERIDIAN-44 insurance?',
      at: expect.any(String),
    },
  ]);
}, 60_000);
