import { createAccount, request, startGateway, type TestAccount, type TestGateway } from '../helpers/gateway';
import { Receiver } from '../gateway/api-support';
import { CREDENTIAL, createHost, loadOptions, runLeadChat, type Host } from './helpers/n8n';

/** Conversation › Add Labels and Remove Label, the Label filter of Get Many, and the labels its dropdowns offer. */
describe('LeadChat node: conversation labels', () => {
  let gw: TestGateway;
  let account: TestAccount;
  let host: Host;
  let replies: Receiver;
  const ids: string[] = [];

  const labelsOf = async (id: string) =>
    (await request(gw, 'GET', `/v1/conversations/${id}`, { apiKey: account.apiKey })).body.labels as string[];
  const run = (
    operation: string,
    parameters: Record<string, unknown>,
    input = [{ json: {} }],
    continueOnFail = false,
  ) => runLeadChat(host, { resource: 'conversation', operation, ...parameters }, input, { continueOnFail });

  beforeAll(async () => {
    gw = await startGateway();
    replies = await Receiver.start();
    account = await createAccount(gw, { name: 'Acme Labels' });
    await request(gw, 'PUT', '/v1/settings', {
      apiKey: account.apiKey,
      body: { customChannelWebhookUrl: replies.url },
    });
    host = await createHost({ [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } });
    for (const fromId of ['visitor-lbl-1', 'visitor-lbl-2']) {
      const sent = await request(gw, 'POST', '/v1/incoming_custom_channel_message', {
        apiKey: account.apiKey,
        body: {
          customData: { messageSid: `lbl-${fromId}`, fromId, toId: 'acme', body: 'Prices?', channel: 'webchat' },
        },
      });
      ids.push(
        (await request(gw, 'GET', `/v1/messages/${sent.body.messageId}`, { apiKey: account.apiKey })).body
          .conversationId,
      );
    }
  }, 60_000);
  afterAll(async () => {
    await replies.close();
    await gw.stop();
  });

  test('Add Labels takes labels separated by commas, or a list mapped; the node outputs the conversation', async () => {
    const typed = await run('addLabels', { conversationId: ids[0], labels: ' Hot lead, pricing ,, ' });
    expect(typed.error).toBeUndefined();
    expect(typed.output('LeadChat')[0]).toMatchObject({
      json: { id: ids[0], labels: ['Hot lead', 'pricing'] },
      pairedItem: { item: 0 },
    });
    const mapped = await run('addLabels', { conversationId: ids[1], labels: '={{ $json.tags }}' }, [
      { json: { tags: ['Demo booked', 'Tarif, annual', 'HOT LEAD'] } },
    ]);
    expect(mapped.error).toBeUndefined();
    expect(await labelsOf(ids[1]!)).toEqual(['Demo booked', 'Tarif, annual', 'HOT LEAD']);
  });

  test("the dropdowns offer the account's labels by name, with how many conversations carry each", async () => {
    expect(await loadOptions(host, 'getLabels')).toEqual([
      { name: 'Demo booked', value: 'Demo booked', description: '1 conversation' },
      // Spelled two ways, once each: as the conversation of the latest activity spells it.
      { name: 'HOT LEAD', value: 'HOT LEAD', description: '2 conversations' },
      { name: 'pricing', value: 'pricing', description: '1 conversation' },
      { name: 'Tarif, annual', value: 'Tarif, annual', description: '1 conversation' },
    ]);
  });

  test('Get Many keeps the conversations carrying the Label, case aside', async () => {
    const getMany = async (label: string) => {
      const result = await run('getAll', { returnAll: true, filters: { label } });
      expect(result.error).toBeUndefined();
      return result.output('LeadChat').map((i) => i.json.id);
    };
    expect(await getMany('hot lead')).toEqual([ids[1], ids[0]]);
    expect(await getMany('Demo booked')).toEqual([ids[1]]);
    expect(await getMany('Nobody has this')).toEqual([]);
  });

  test('Remove Label takes one off, case aside; an empty one or more than 20 fails the item, the others go on', async () => {
    const removed = await run('removeLabel', { conversationId: ids[1], label: 'tarif, ANNUAL' });
    expect(removed.output('LeadChat')[0]!.json).toMatchObject({ id: ids[1], labels: ['Demo booked', 'HOT LEAD'] });
    expect((await run('addLabels', { conversationId: ids[0], labels: ' , ' })).error?.message).toBe('Labels is empty');
    const many = Array.from({ length: 19 }, (_, i) => `tag ${i}`).join(',');
    const result = await run(
      'addLabels',
      { conversationId: '={{ $json.id }}', labels: '={{ $json.labels }}' },
      [
        { json: { id: ids[0], labels: many } },
        { json: { id: 'cnv_missing', labels: 'x' } },
        { json: { id: ids[0], labels: 'Won' } },
      ],
      true,
    );
    const [tooMany, missing, won] = result.output('LeadChat');
    expect(tooMany!.json).toMatchObject({ httpCode: '409', errorCode: 'TOO_MANY_LABELS' });
    expect(missing!.json).toMatchObject({ httpCode: '404', errorCode: 'CONVERSATION_NOT_FOUND' });
    expect(won!.json).toMatchObject({ labels: ['Hot lead', 'pricing', 'Won'] });
  });
});
