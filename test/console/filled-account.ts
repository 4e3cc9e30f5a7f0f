import { dataUri, incoming, png, poll } from '../gateway/api-support';
import { createAccount, request, type TestGateway } from '../helpers/gateway';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * An account with something on every page: a list of contacts and an import with a refused row, a campaign with a
 * FAQ, conversations (Eve's with an image, Fay's), an agent who joined and a member still invited; beside it an agency
 * with a sub-account. What the pages are scanned on by axe-core.
 */
export interface FilledAccount {
  owner: ConsoleAccount;
  agency: ConsoleAccount;
  agent: ConsoleAccount;
  listId: string;
  campaignId: string;
  /** Eve's conversation: a message of hers answered by the bot, then an image. */
  conversationId: string;
}

export async function filledAccount(gw: TestGateway): Promise<FilledAccount> {
  const owner = await consoleAccount(gw, { name: 'Every Page Dental' });
  const api = (method: string, path: string, body?: unknown) =>
    request(gw, method, `/v1${path}`, { apiKey: owner.apiKey, body });
  const agency = await consoleAccount(gw, { type: 'agency', name: 'Every Page Agency' });
  await createAccount(gw, { parentEmail: agency.email, name: 'Smile Clinic' });

  const listId = (await api('POST', '/lists', { name: 'Patients' })).body.id;
  for (const [firstName, phone] of [
    ['Ann', '+15550102001'],
    ['Bob', '+15550102002'],
  ]) {
    const contact = (await api('POST', '/contacts', { firstName, phone })).body;
    expect((await api('POST', `/lists/${listId}/contacts`, { contactId: contact.id })).status).toBe(201);
  }
  const imported = await api('POST', `/lists/${listId}/imports`, {
    csv: 'First name,Phone\nCara,+15550102003\nDan,not a phone\n',
    columns: { firstName: 'First name', phone: 'Phone' },
  });
  expect(imported.status).toBe(202);
  await poll(
    () => api('GET', `/imports/${imported.body.id}`),
    (r) => r.body.status === 'done',
  );
  const campaignId = (
    await api('POST', '/campaigns', {
      name: 'Spring check-ups',
      channel: 'custom',
      customChannel: 'web-chat',
      listId,
      openingMessage: 'Hi {{first_name}}!',
      bot: { faqs: [{ question: 'When do you open?', answer: 'At 9 am.' }] },
    })
  ).body.id;
  const wrote = await api(
    'POST',
    '/incoming_custom_channel_message',
    incoming({
      fromId: 'visitor-eve',
      firstName: 'Eve',
      channel: 'web-chat',
      body: 'Can I book a cleaning?',
      campaignId,
    }),
  );
  const conversationId = (await api('GET', `/messages/${wrote.body.messageId}`)).body.conversationId;
  await api(
    'POST',
    '/incoming_custom_channel_message',
    incoming({
      fromId: 'visitor-eve',
      channel: 'web-chat',
      body: 'My x-ray',
      mediaUrl: dataUri('image/png', png(8, 8)),
      mediaContentType: 'image/png',
    }),
  );
  await api(
    'POST',
    '/incoming_custom_channel_message',
    incoming({ fromId: 'visitor-fay', firstName: 'Fay', channel: 'web-chat', body: 'Hello?' }),
  );
  expect(
    (await api('POST', '/members', { email: 'new.agent@every.example', name: 'New Agent', role: 'agent' })).status,
  ).toBe(201);
  const invitedAgent = await api('POST', '/members', {
    email: 'agent@every.example',
    name: 'Ada Agent',
    role: 'agent',
  });
  const agent = { ...owner, email: 'agent@every.example', password: 'agent-password-long-enough' };
  // Ada's link is used; New Agent's is still open: the team shows both.
  const token = new URL(invitedAgent.body.inviteUrl).hash.slice(1);
  expect(
    (
      await request(gw, 'POST', `/console/api/invites/${token}`, {
        headers: { origin: gw.url },
        body: { password: agent.password },
      })
    ).status,
  ).toBe(200);
  return { owner, agency, agent, listId, campaignId, conversationId };
}
