import { consoleAccount, signIn, teamMember, withSession, type SignedIn } from '../console/support';
import { twilio } from '../helpers/provider-accounts';
import { api, createAccount, expectApiError, uniquePhone, useGateway, type TestAccount } from './api-support';

/**
 * The account's audit log (GET /v1/audit-log): who changed what, and when, newest first, for the owner and admins;
 * each entry written with the change it records, naming no secret and of a contact its id alone.
 */
jest.setTimeout(60_000);

const ctx = useGateway();

const asMember = (session: SignedIn, method: string, path: string, body?: unknown) =>
  withSession(ctx.gw, session, method, `/v1/${path}`, {
    headers: { origin: ctx.gw.url },
    ...(body === undefined ? {} : { body }),
  });

/** Every entry of the account's log, newest first, and the answer's text to look for secrets in. */
async function logOf(owner: Pick<TestAccount, 'apiKey'>, query: Record<string, string> = {}) {
  const res = await api(ctx.gw, owner, 'GET', 'audit-log', { query: { limit: '200', ...query } });
  expect(res.status).toBe(200);
  return { entries: res.body.data as any[], text: res.text };
}

const API_KEY = { type: 'api_key', id: null, name: 'API key' };

describe('GET /v1/audit-log', () => {
  test('each change made with the API key is there once, newest first, by the API key, naming no secret', async () => {
    const owner = await createAccount(ctx.gw);
    const secrets: string[] = [owner.apiKey];
    const call = async (method: string, path: string, body?: unknown, status = 200) => {
      const res = await api(ctx.gw, owner, method, path, body === undefined ? {} : { body });
      expect(res.status).toBe(status);
      return res.body;
    };

    await call('PUT', 'settings', { helpText: 'Write STOP to stop.', language: 'de' });
    await call('PUT', 'settings', { customChannelWebhookUrl: 'http://127.0.0.1:9/replies?token=tok-3141' });
    secrets.push('tok-3141');
    await call('PUT', 'settings/bot', {
      provider: 'openai',
      openai: { baseUrl: 'http://127.0.0.1:9/v1', model: 'small', apiKey: 'sk-bot-2718281828' },
    });
    secrets.push('sk-bot-2718281828');
    secrets.push((await call('POST', 'settings/webhook-secret')).webhookSecret);
    const rotated = (await call('POST', 'api-key')).apiKey;
    secrets.push(rotated);
    owner.apiKey = rotated;
    const invited = await call('POST', 'members', { email: 'ada@team.example', name: 'Ada', role: 'agent' }, 201);
    secrets.push(invited.inviteUrl.split('#')[1]);
    secrets.push((await call('POST', `members/${invited.id}/invite`)).inviteUrl.split('#')[1]);
    await call('PATCH', `members/${invited.id}`, { role: 'admin' });
    await call('DELETE', `members/${invited.id}`, undefined, 204);
    await call('PUT', 'channels/twilio', twilio);
    secrets.push(twilio.authToken);
    await call('DELETE', 'channels/twilio');
    const hook = await call('POST', 'webhooks', { url: 'http://127.0.0.1:9/hook', events: ['reply'] }, 201);
    secrets.push(hook.secret);
    await call('DELETE', `webhooks/${hook.id}`, undefined, 204);
    const campaign = await call('POST', 'campaigns', { name: 'Spring' }, 201);
    await call('PATCH', `campaigns/${campaign.id}`, { name: 'Spring sale' });
    await call('PATCH', `campaigns/${campaign.id}`, { status: 'archived' });
    const list = await call('POST', 'lists', { name: 'Leads' }, 201);
    expect((await api(ctx.gw, owner, 'GET', `lists/${list.id}/export`)).status).toBe(200);
    await call('DELETE', `lists/${list.id}`, undefined, 204);
    const phone = uniquePhone();
    const kept = await call('POST', 'contacts', { phone, firstName: 'Perpetua', email: 'perpetua@example.com' }, 201);
    const duplicate = await call('POST', 'contacts', { email: 'duplicate@example.com' }, 201);
    await call('GET', `contacts/${kept.id}/export`);
    await call('POST', `contacts/${kept.id}/merge`, { contactId: duplicate.id });
    await call('DELETE', `contacts/${kept.id}`, undefined, 204);

    const { entries, text } = await logOf(owner);
    expect(entries.map((e) => e.action)).toEqual([
      'contact.erased',
      'contact.merged',
      'contact.exported',
      'list.deleted',
      'list.exported',
      'campaign.archived',
      'campaign.changed',
      'campaign.created',
      'webhook.deleted',
      'webhook.created',
      'channel.credentials_removed',
      'channel.credentials_set',
      'member.removed',
      'member.changed',
      'member.reinvited',
      'member.invited',
      'api_key.rotated',
      'webhook_secret.rotated',
      'settings.changed',
      'custom_channel.webhook_url_set',
      'settings.changed',
    ]);
    for (const e of entries) {
      expect(e).toEqual({
        id: expect.stringMatching(/^aud_[0-9A-Za-z]{20}$/),
        at: expect.any(String),
        action: e.action,
        actor: API_KEY,
        target: e.target,
        details: e.details,
      });
    }
    const of = (action: string) => entries.filter((e) => e.action === action);
    expect(of('settings.changed').map((e) => e.details)).toEqual([
      { keys: ['bot.provider', 'bot.openai'] },
      { keys: ['helpText', 'language'] },
    ]);
    expect(of('custom_channel.webhook_url_set')[0]).toMatchObject({ target: null, details: { cleared: false } });
    const member = { type: 'member', id: invited.id, name: 'Ada' };
    expect(of('member.invited')[0]).toMatchObject({ target: member, details: { role: 'agent' } });
    expect(of('member.changed')[0]).toMatchObject({
      target: member,
      details: { keys: ['role'], roleBefore: 'agent', roleAfter: 'admin' },
    });
    expect(of('member.removed')[0].target).toEqual(member);
    expect(of('channel.credentials_set')[0].target).toEqual({ type: 'channel', id: 'twilio', name: 'twilio' });
    expect(of('webhook.created')[0]).toMatchObject({
      target: { type: 'webhook', id: hook.id, name: '127.0.0.1:9' },
      details: { events: ['reply'] },
    });
    expect(of('campaign.changed')[0]).toMatchObject({
      target: { type: 'campaign', id: campaign.id, name: 'Spring sale' },
      details: { keys: ['name'] },
    });
    expect(of('campaign.archived')[0].target).toEqual({ type: 'campaign', id: campaign.id, name: 'Spring sale' });
    expect(of('list.deleted')[0].target).toEqual({ type: 'list', id: list.id, name: 'Leads' });
    const contact = { type: 'contact', id: kept.id, name: null };
    expect(of('contact.exported')[0].target).toEqual(contact);
    expect(of('contact.merged')[0]).toMatchObject({ target: contact, details: { duplicateId: duplicate.id } });
    expect(of('contact.erased')[0]).toMatchObject({ target: contact, details: {} });

    // No secret, and nothing a contact could be known by.
    for (const secret of [...secrets, phone, phone.slice(1), 'Perpetua', 'perpetua@example.com', 'duplicate@'])
      expect(text).not.toContain(secret);
  });

  test("a member's changes are theirs, a console sign-in is there with its address, and ?actorId= and ?action= pick them", async () => {
    const owner = await consoleAccount(ctx.gw);
    const admin = await teamMember(ctx.gw, owner, 'admin', 'Grace');
    const rotated = await asMember(admin, 'POST', 'api-key');
    expect(rotated.status).toBe(200);
    owner.apiKey = rotated.body.apiKey;
    const ownerSession = await signIn(ctx.gw, owner.email, owner.password);
    expect(ownerSession.reply.status).toBe(200);
    expect((await asMember(ownerSession, 'PUT', 'settings', { helpText: 'Hi' })).status).toBe(200);

    const { entries, text } = await logOf(owner);
    const grace = { type: 'member', id: admin.id, name: 'Grace' };
    const ownerActor = { type: 'member', id: expect.stringMatching(/^mem_/), name: expect.any(String) };
    expect(entries).toEqual([
      expect.objectContaining({ action: 'settings.changed', actor: ownerActor, details: { keys: ['helpText'] } }),
      expect.objectContaining({ action: 'console.signed_in', actor: ownerActor, details: { ip: '127.0.0.1' } }),
      expect.objectContaining({ action: 'api_key.rotated', actor: grace, target: null }),
      // Accepting the invitation signs the member in.
      expect.objectContaining({ action: 'console.signed_in', actor: grace, details: { ip: '127.0.0.1' } }),
      expect.objectContaining({ action: 'member.invited', actor: API_KEY }),
    ]);
    expect(text).not.toContain(owner.password);
    expect(text).not.toContain(rotated.body.apiKey);

    expect((await logOf(owner, { actorId: admin.id })).entries.map((e) => e.action)).toEqual([
      'api_key.rotated',
      'console.signed_in',
    ]);
    expect((await logOf(owner, { actorId: 'api_key' })).entries.map((e) => e.action)).toEqual(['member.invited']);
    expect((await logOf(owner, { action: 'console.signed_in' })).entries.map((e) => e.actor.name)).toEqual([
      entries[0].actor.name,
      'Grace',
    ]);
    expect(
      (await logOf(owner, { action: 'console.signed_in', actorId: admin.id })).entries.map((e) => e.actor.name),
    ).toEqual(['Grace']);
    // An admin reads it too.
    expect((await asMember(admin, 'GET', 'audit-log')).body.data).toHaveLength(5);
  });

  test('an agent is refused, 403 FORBIDDEN', async () => {
    const owner = await createAccount(ctx.gw);
    const agent = await teamMember(ctx.gw, owner, 'agent');
    expectApiError(await asMember(agent, 'GET', 'audit-log'), 403, 'FORBIDDEN');
  });

  test('a change refused records nothing, nor does one that changed nothing', async () => {
    const owner = await createAccount(ctx.gw);
    const agent = await teamMember(ctx.gw, owner, 'agent');
    const before = (await logOf(owner)).entries;
    expectApiError(await asMember(agent, 'POST', 'api-key'), 403, 'FORBIDDEN');
    expectApiError(await asMember(agent, 'DELETE', 'contacts/ct_nobody'), 403, 'FORBIDDEN');
    expectApiError(await api(ctx.gw, owner, 'DELETE', 'webhooks/whk_nobody'), 404);
    expectApiError(await api(ctx.gw, owner, 'DELETE', 'channels/twilio'), 404);
    expectApiError(await api(ctx.gw, owner, 'GET', 'contacts/ct_nobody/export'), 404);
    expectApiError(await api(ctx.gw, owner, 'GET', 'lists/lst_nobody/export'), 404);
    expectApiError(await api(ctx.gw, owner, 'PUT', 'settings', { body: { defaultCountry: 'XX' } }), 400);
    expectApiError(await api(ctx.gw, owner, 'PATCH', 'members/mem_nobody', { body: { role: 'admin' } }), 404);
    const list = (await api(ctx.gw, owner, 'POST', 'lists', { body: { name: 'In use' } })).body;
    expect((await api(ctx.gw, owner, 'POST', 'campaigns', { body: { name: 'On it', listId: list.id } })).status).toBe(
      201,
    );
    expectApiError(await api(ctx.gw, owner, 'DELETE', `lists/${list.id}`), 409, 'LIST_HAS_CAMPAIGNS');
    // The same help text again changes nothing.
    expect((await api(ctx.gw, owner, 'PUT', 'settings', { body: { helpText: 'Same' } })).status).toBe(200);
    expect((await api(ctx.gw, owner, 'PUT', 'settings', { body: { helpText: 'Same' } })).status).toBe(200);
    const after = (await logOf(owner)).entries;
    expect(after.slice(0, after.length - before.length).map((e) => e.action)).toEqual([
      'settings.changed',
      'campaign.created',
    ]);
  });

  test("another account's entries are never seen", async () => {
    const one = await createAccount(ctx.gw);
    const other = await createAccount(ctx.gw);
    expect((await api(ctx.gw, one, 'POST', 'api-key')).status).toBe(200);
    expect((await logOf(other)).entries).toEqual([]);
  });

  test('pages newest first with limit and cursor; a cursor of other filters is refused', async () => {
    const owner = await createAccount(ctx.gw);
    for (let i = 0; i < 5; i += 1)
      expect((await api(ctx.gw, owner, 'PUT', 'settings', { body: { helpText: `Help ${i}` } })).status).toBe(200);
    const all = (await logOf(owner)).entries.map((e) => e.id);
    expect(all).toHaveLength(5);
    const walked: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await api(ctx.gw, owner, 'GET', 'audit-log', {
        query: { limit: '2', ...(cursor ? { cursor } : {}) },
      });
      expect(page.status).toBe(200);
      walked.push(...page.body.data.map((e: any) => e.id));
      cursor = page.body.nextCursor ?? undefined;
      if (walked.length === 2) {
        expectApiError(
          await api(ctx.gw, owner, 'GET', 'audit-log', { query: { cursor: cursor!, action: 'settings.changed' } }),
          400,
          'INVALID_CURSOR',
        );
      }
    } while (cursor);
    expect(walked).toEqual(all);
    expectApiError(await api(ctx.gw, owner, 'GET', 'audit-log', { query: { action: 'nothing.done' } }), 400);
  });

  test('an entry goes after 365 days', async () => {
    const owner = await createAccount(ctx.gw);
    owner.apiKey = (await api(ctx.gw, owner, 'POST', 'api-key')).body.apiKey;
    owner.apiKey = (await api(ctx.gw, owner, 'POST', 'api-key')).body.apiKey;
    for (let month = 0; month < 13; month += 1) {
      await ctx.gw.advance('28d');
      await ctx.gw.drain();
    }
    expect((await api(ctx.gw, owner, 'PUT', 'settings', { body: { helpText: 'A year on' } })).status).toBe(200);
    expect((await logOf(owner)).entries.map((e) => e.action)).toEqual([
      'settings.changed',
      'api_key.rotated',
      'api_key.rotated',
    ]);
    await ctx.gw.advance('1d2h');
    await ctx.gw.drain();
    expect((await logOf(owner)).entries.map((e) => e.action)).toEqual(['settings.changed']);
  });
});
