import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccount, request, startGateway, type TestAccount, type TestGateway } from '../helpers/gateway';
import { byId, CREDENTIAL, createHost, runLeadChat, type Host } from './helpers/n8n';

/** List › Create, Get Many, Remove Contact, Update, Delete; Campaign › Update and Get Many by status; Message › Get and Retry, run as workflows against the gateway. */
describe("LeadChat node: lists, campaign updates and a message's delivery status", () => {
  let gw: TestGateway;
  let account: TestAccount;
  let host: Host;

  const api = (method: string, path: string, body?: unknown) =>
    request(gw, method, `/v1${path}`, { apiKey: account.apiKey, body });

  beforeAll(async () => {
    gw = await startGateway();
    account = await createAccount(gw);
    host = await createHost({ [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } });
  });
  afterAll(async () => {
    await gw.stop();
  });

  test('List › Create makes a list per item; Get Many lists them, or those whose name holds a text', async () => {
    const run = await runLeadChat(host, { resource: 'list', operation: 'create', name: '={{ $json.name }}' }, [
      { json: { name: 'Open day' } },
      { json: { name: 'Open house' } },
      { json: { name: 'Recall' } },
    ]);
    expect(run.error).toBeUndefined();
    const made = run.output('LeadChat').map((item) => item.json);
    expect(made).toEqual([
      { id: expect.stringMatching(/^lst_/), name: 'Open day', createdAt: expect.any(String) },
      { id: expect.stringMatching(/^lst_/), name: 'Open house', createdAt: expect.any(String) },
      { id: expect.stringMatching(/^lst_/), name: 'Recall', createdAt: expect.any(String) },
    ]);
    const all = await runLeadChat(host, { resource: 'list', operation: 'getAll', returnAll: true });
    expect(all.output('LeadChat').map((item) => item.json.name)).toEqual(['Open day', 'Open house', 'Recall']);
    const open = await runLeadChat(host, {
      resource: 'list',
      operation: 'getAll',
      returnAll: false,
      limit: 10,
      filters: { q: 'OPEN' },
    });
    expect(open.output('LeadChat').map((item) => item.json.name)).toEqual(['Open day', 'Open house']);
    const empty = await runLeadChat(host, { resource: 'list', operation: 'create', name: ' ' });
    expect(empty.error?.message).toBe('Name is empty');
  });

  test("List › Get Contacts: a list's contacts in the order they joined; Return All walks every page, Limit stops", async () => {
    const list = (await api('POST', '/lists', { name: 'Spring open day' })).body;
    const joined: string[] = [];
    for (let n = 0; n < 105; n++) {
      const contact = (await api('POST', '/contacts', { phone: `+1415555${String(7000 + n)}`, firstName: `G${n}` }))
        .body;
      expect((await api('POST', `/lists/${list.id}/contacts`, { contactId: contact.id })).status).toBe(201);
      joined.push(contact.id);
    }
    const all = await runLeadChat(host, {
      resource: 'list',
      operation: 'getContacts',
      list: byId(list.id),
      returnAll: true,
    });
    expect(all.error).toBeUndefined();
    const items = all.output('LeadChat');
    expect(items.map((item) => item.json.id)).toEqual(joined);
    expect(items[0]!.json).toMatchObject({ firstName: 'G0', phone: '+14155557000', addedAt: expect.any(String) });
    for (const item of items) expect(item.pairedItem).toEqual({ item: 0 });
    const some = await runLeadChat(host, { resource: 'list', operation: 'getContacts', list: byId(list.id), limit: 3 });
    expect(some.output('LeadChat').map((item) => item.json.id)).toEqual(joined.slice(0, 3));
    const unknown = await runLeadChat(host, { resource: 'list', operation: 'getContacts', list: byId('lst_nope') });
    expect(unknown.error?.description).toMatch(/^HTTP 404 LIST_NOT_FOUND from GET \/lists\/lst_nope\/contacts\./);
  });

  test('List › Remove Contact takes the contact off the list, which keeps the others; again is a 404 that says why', async () => {
    const list = (await api('POST', '/lists', { name: 'Removal' })).body;
    const [stay, go] = await Promise.all([
      api('POST', '/contacts', { phone: '+14155550401' }),
      api('POST', '/contacts', { phone: '+14155550402' }),
    ]);
    for (const contact of [stay, go]) await api('POST', `/lists/${list.id}/contacts`, { contactId: contact.body.id });
    const run = await runLeadChat(host, {
      resource: 'list',
      operation: 'removeContact',
      list: byId(list.id),
      contactId: byId(go.body.id),
    });
    expect(run.error).toBeUndefined();
    expect(run.output('LeadChat')[0]!.json).toEqual({ removed: true, listId: list.id, contactId: go.body.id });
    const members = (await api('GET', `/lists/${list.id}/contacts`)).body.data.map((c: { id: string }) => c.id);
    expect(members).toEqual([stay.body.id]);
    expect((await api('GET', `/contacts/${go.body.id}`)).status).toBe(200);
    const again = await runLeadChat(host, {
      resource: 'list',
      operation: 'removeContact',
      list: byId(list.id),
      contactId: byId(go.body.id),
    });
    expect(again.error?.httpCode).toBe('404');
    expect(again.error?.description).toMatch(/the contact is not on this list/);
  });

  test('List › Update renames the list picked; an empty name or an unknown list fails the item, saying why', async () => {
    const list = (await api('POST', '/lists', { name: 'Sprnig open day' })).body;
    const run = await runLeadChat(host, {
      resource: 'list',
      operation: 'update',
      list: byId(list.id),
      name: ' Spring open day ',
    });
    expect(run.error).toBeUndefined();
    expect(run.output('LeadChat')[0]!.json).toEqual({ ...list, name: 'Spring open day' });
    expect((await api('GET', `/lists/${list.id}`)).body.name).toBe('Spring open day');
    const empty = await runLeadChat(host, { resource: 'list', operation: 'update', list: byId(list.id), name: ' ' });
    expect(empty.error?.message).toBe('Name is empty');
    const unknown = await runLeadChat(host, {
      resource: 'list',
      operation: 'update',
      list: byId('lst_nope'),
      name: 'Anything',
    });
    expect(unknown.error?.description).toMatch(/^HTTP 404 LIST_NOT_FOUND from PATCH \/lists\/lst_nope\./);
  });

  test('List › Delete deletes the list, its contacts stay; one a campaign is linked to is refused, naming it; again is a 404', async () => {
    const list = (await api('POST', '/lists', { name: 'Test list' })).body;
    const contact = (await api('POST', '/contacts', { phone: '+14155550501' })).body;
    await api('POST', `/lists/${list.id}/contacts`, { contactId: contact.id });
    const campaign = (await api('POST', '/campaigns', { name: 'Linked one', channel: 'sms', listId: list.id })).body;
    const refused = await runLeadChat(host, { resource: 'list', operation: 'delete', list: byId(list.id) });
    expect(refused.error?.description).toMatch(/^HTTP 409 LIST_HAS_CAMPAIGNS /);
    expect(refused.error?.message).toContain(`"Linked one" (${campaign.id})`);
    expect((await api('GET', `/lists/${list.id}`)).status).toBe(200);

    await api('PATCH', `/campaigns/${campaign.id}`, { listId: null });
    const run = await runLeadChat(host, { resource: 'list', operation: 'delete', list: byId(list.id) });
    expect(run.error).toBeUndefined();
    expect(run.output('LeadChat')[0]!.json).toEqual({ deleted: true, listId: list.id });
    expect((await api('GET', `/lists/${list.id}`)).status).toBe(404);
    expect((await api('GET', `/contacts/${contact.id}`)).status).toBe(200);
    const again = await runLeadChat(host, { resource: 'list', operation: 'delete', list: byId(list.id) });
    expect(again.error?.httpCode).toBe('404');
    expect(again.error?.description).toMatch(/^HTTP 404 LIST_NOT_FOUND from DELETE \/lists\//);
  });

  test('Campaign › Update renames a campaign, makes it Live and pauses it; one that cannot send is refused Live, saying why', async () => {
    const listless = (await api('POST', '/campaigns', { name: 'No list', channel: 'sms', openingMessage: 'Hi!' })).body;
    const refused = await runLeadChat(host, {
      resource: 'campaign',
      operation: 'update',
      campaign: byId(listless.id),
      updateFields: { status: 'live' },
    });
    expect(refused.error?.message).toBe('LeadChat: The campaign cannot go Live: link it to a list (listId)');
    expect(refused.error?.description).toMatch(/^HTTP 400 CAMPAIGN_CANNOT_SEND /);

    const list = (await api('POST', '/lists', { name: 'Recall list' })).body;
    const campaign = (
      await api('POST', '/campaigns', { name: 'Draft one', channel: 'sms', listId: list.id, openingMessage: 'Hi!' })
    ).body;
    expect(campaign.status).toBe('draft');
    const live = await runLeadChat(host, {
      resource: 'campaign',
      operation: 'update',
      campaign: byId(campaign.id),
      updateFields: { name: 'Spring recall', status: 'live' },
    });
    expect(live.error).toBeUndefined();
    expect(live.output('LeadChat')[0]!.json).toMatchObject({ id: campaign.id, name: 'Spring recall', status: 'live' });
    const paused = await runLeadChat(host, {
      resource: 'campaign',
      operation: 'update',
      campaign: byId(campaign.id),
      updateFields: { status: 'paused' },
    });
    expect(paused.output('LeadChat')[0]!.json).toMatchObject({ name: 'Spring recall', status: 'paused' });
    expect((await api('GET', `/campaigns/${campaign.id}`)).body).toMatchObject({
      name: 'Spring recall',
      status: 'paused',
    });
    const nothing = await runLeadChat(host, {
      resource: 'campaign',
      operation: 'update',
      campaign: byId(campaign.id),
      updateFields: {},
    });
    expect(nothing.error?.message).toBe('Nothing to update');
  });

  test('Campaign › Update archives a campaign, which Get Many then lists only under Status Archived; Paused brings it back', async () => {
    const campaign = (await api('POST', '/campaigns', { name: 'Winter promo', channel: 'sms' })).body;
    const update = (updateFields: Record<string, string>) =>
      runLeadChat(host, { resource: 'campaign', operation: 'update', campaign: byId(campaign.id), updateFields });
    const archived = await update({ status: 'archived' });
    expect(archived.error).toBeUndefined();
    expect(archived.output('LeadChat')[0]!.json).toMatchObject({ id: campaign.id, status: 'archived' });

    const ids = async (filters: Record<string, string>) =>
      (await runLeadChat(host, { resource: 'campaign', operation: 'getAll', returnAll: true, filters }))
        .output('LeadChat')
        .map((item) => item.json.id);
    expect(await ids({})).not.toContain(campaign.id);
    expect(await ids({ status: 'archived' })).toEqual([campaign.id]);

    const renamed = await update({ name: 'Winter promo 2' });
    expect(renamed.error?.description).toMatch(/^HTTP 409 CAMPAIGN_ARCHIVED /);
    const back = await update({ status: 'paused', name: 'Winter promo 2' });
    expect(back.output('LeadChat')[0]!.json).toMatchObject({ name: 'Winter promo 2', status: 'paused' });
    expect(await ids({})).toContain(campaign.id);
  });

  test('Message › Get gives the delivery status: a message that could not go is failed, with its code and reason', async () => {
    const sent = await api('POST', '/send_custom_channel_message', {
      customData: { fromId: 'visitor-9', customChannel: 'livechat', body: 'Hello' },
    });
    expect(sent.status).toBe(200);
    const run = await runLeadChat(host, { resource: 'message', operation: 'get', messageId: sent.body.messageId });
    expect(run.error).toBeUndefined();
    const message = run.output('LeadChat')[0]!.json;
    expect(message).toMatchObject({
      id: sent.body.messageId,
      direction: 'outgoing',
      body: 'Hello',
      status: 'failed',
      errorCode: 'NO_RECEIVER',
    });
    expect(message.deliveries).toEqual(expect.any(Array));
    const missing = await runLeadChat(host, { resource: 'message', operation: 'get', messageId: 'msg_nothing' });
    expect(missing.error?.httpCode).toBe('404');
    expect(missing.error?.description).toMatch(/Check the Message ID/);
    // An ID mapped from a field that holds null is empty, not the text "null" looked up as an ID.
    const unmapped = await runLeadChat(host, { resource: 'message', operation: 'get', messageId: '={{ $json.id }}' }, [
      { json: { id: null } },
    ]);
    expect(unmapped.error?.message).toBe('Message ID is empty');
  });

  test("Message › Get Many: a contact's messages, oldest first, one item each; Return All walks every page, Limit stops", async () => {
    const said: string[] = [];
    let contactId = '';
    for (let n = 0; n < 105; n++) {
      const sent = await api('POST', '/send_custom_channel_message', {
        customData: { fromId: 'visitor-history', customChannel: 'livechat', body: `Note ${n}` },
      });
      expect(sent.status).toBe(200);
      contactId = sent.body.contactId;
      said.push(sent.body.messageId);
    }
    const all = await runLeadChat(host, {
      resource: 'message',
      operation: 'getAll',
      contactId: byId(contactId),
      returnAll: true,
    });
    expect(all.error).toBeUndefined();
    const items = all.output('LeadChat');
    expect(items.map((item) => item.json.id)).toEqual(said);
    expect(items[0]!.json).toMatchObject({
      contactId,
      direction: 'outgoing',
      body: 'Note 0',
      channel: 'livechat',
      conversationId: expect.stringMatching(/^cnv_/),
    });
    for (const item of items) expect(item.pairedItem).toEqual({ item: 0 });
    const some = await runLeadChat(host, {
      resource: 'message',
      operation: 'getAll',
      contactId: byId(contactId),
      limit: 3,
    });
    expect(some.output('LeadChat').map((item) => item.json.id)).toEqual(said.slice(0, 3));
    const unknown = await runLeadChat(host, { resource: 'message', operation: 'getAll', contactId: byId('ct_nope') });
    expect(unknown.error?.description).toMatch(/^HTTP 404 CONTACT_NOT_FOUND from GET \/contacts\/ct_nope\/messages\./);
  });

  test("Message › Get Many: Newest First with a Limit gives a contact's latest messages; a Conversation ID, that conversation's alone", async () => {
    const write = async (channel: string, body: string) => {
      const received = await api('POST', '/incoming_custom_channel_message', {
        customData: { messageSid: `sid-${channel}-${body}`, fromId: 'ana@example.com', toId: 'biz', channel, body },
      });
      expect(received.status).toBe(200);
      return (await api('GET', `/messages/${received.body.messageId}`)).body as {
        contactId: string;
        conversationId: string;
      };
    };
    const { contactId, conversationId: chat } = await write('web-chat', 'Chat 1');
    const { conversationId: mail } = await write('email', 'Mail 1');
    expect(mail).not.toBe(chat);
    for (const body of ['Chat 2', 'Chat 3']) await write('web-chat', body);
    await write('email', 'Mail 2');
    // What the contact wrote; the account's notice that a person will answer comes once per conversation between.
    const bodies = (run: Awaited<ReturnType<typeof runLeadChat>>) => {
      expect(run.error).toBeUndefined();
      return run
        .output('LeadChat')
        .map((item) => item.json)
        .filter((message) => message.direction === 'incoming')
        .map((message) => message.body);
    };
    const getMany = (fields: Record<string, unknown>) =>
      runLeadChat(host, { resource: 'message', operation: 'getAll', contactId: byId(contactId), ...fields });

    const latest = await getMany({ order: 'desc', limit: 2 });
    expect(latest.output('LeadChat').map((item) => item.json.body)).toEqual(['Mail 2', 'Chat 3']);
    expect(bodies(await getMany({ order: 'desc', returnAll: true }))).toEqual([
      'Mail 2',
      'Chat 3',
      'Chat 2',
      'Mail 1',
      'Chat 1',
    ]);
    expect(bodies(await getMany({ filters: { conversationId: chat }, returnAll: true }))).toEqual([
      'Chat 1',
      'Chat 2',
      'Chat 3',
    ]);
    const latestChat = await getMany({ filters: { conversationId: chat }, order: 'desc', limit: 1 });
    expect(latestChat.output('LeadChat').map((item) => [item.json.body, item.json.conversationId])).toEqual([
      ['Chat 3', chat],
    ]);
    // Saved before the order existed, a workflow reads the history from its start, as it did.
    const oldest = await getMany({ limit: 2 });
    expect(oldest.output('LeadChat').map((item) => item.json.body)).toEqual([
      'Chat 1',
      'Thanks for your message! A member of our team will get back to you shortly.',
    ]);
    const unknown = await getMany({ filters: { conversationId: 'cnv_none' } });
    expect(unknown.error?.description).toMatch(
      /^HTTP 404 CONVERSATION_NOT_FOUND from GET \/contacts\/ct_\w+\/messages\./,
    );
  });

  test('Message › Retry sends a failed message again once something receives it; one not failed is told so', async () => {
    const sent = await api('POST', '/send_custom_channel_message', {
      customData: { fromId: 'visitor-10', customChannel: 'livechat', body: 'Are you there?' },
    });
    expect(sent.body).toMatchObject({ success: false, errorCode: 'NO_RECEIVER' });
    const retry = () => runLeadChat(host, { resource: 'message', operation: 'retry', messageId: sent.body.messageId });
    const refused = await retry();
    expect(refused.error?.httpCode).toBe('409');
    expect(refused.error?.description).toMatch(/set the Custom Channel Webhook/);

    const receiver = createServer((req, res) => req.resume().on('end', () => res.end()));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/replies`;
      expect((await api('PUT', '/settings', { customChannelWebhookUrl: url })).status).toBe(200);
      const run = await retry();
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat')[0]!.json).toMatchObject({ id: sent.body.messageId, status: 'pending' });
      const again = await retry();
      expect(again.error?.description).toMatch(/HTTP 409 MESSAGE_NOT_FAILED/);
      expect(again.error?.description).toMatch(/Only a failed outgoing message can be sent again/);
    } finally {
      await api('PUT', '/settings', { customChannelWebhookUrl: null });
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
