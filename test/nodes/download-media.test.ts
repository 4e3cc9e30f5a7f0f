import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccount, request, startGateway, type TestAccount, type TestGateway } from '../helpers/gateway';
import { createHost, runLeadChat, type Host } from './helpers/n8n';

const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

/** Message > Download Media, against the gateway: the file a contact sent, as n8n binary data. */
describe('LeadChat node: Message > Download Media', () => {
  let gw: TestGateway;
  let account: TestAccount;
  let host: Host;
  let sent = 0;

  /** A contact's message with a file, posted as a custom channel posts it: its message as Message > Get gives it. */
  async function receiveFile(
    owner: TestAccount,
    contentType: string,
    bytes: Buffer,
    fromId = 'visitor-1',
  ): Promise<{ id: string; contactId: string; media: { url: string; contentType: string; mediaId: string } }> {
    sent += 1;
    const received = await request(gw, 'POST', '/v1/incoming_custom_channel_message', {
      apiKey: owner.apiKey,
      keyIn: 'query',
      body: {
        customData: {
          messageSid: `file-${sent}`,
          fromId,
          toId: 'acme',
          body: 'Here it is',
          channel: 'webchat',
          mediaUrl: `data:${contentType};base64,${bytes.toString('base64')}`,
          mediaContentType: contentType,
        },
      },
    });
    expect(received.status).toBe(200);
    const message = await request(gw, 'GET', `/v1/messages/${received.body.messageId}`, { apiKey: owner.apiKey });
    expect(message.body.media).toMatchObject({ url: expect.stringMatching(/^\/v1\/media\/med_\w+$/) });
    return message.body;
  }

  const download = (media: string, extra: Record<string, unknown> = {}) => ({
    resource: 'message',
    operation: 'downloadMedia',
    media,
    ...extra,
  });

  beforeAll(async () => {
    gw = await startGateway();
    account = await createAccount(gw);
    host = await createHost({ leadChatApi: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } });
  });
  afterAll(async () => {
    await gw.stop();
  });

  test("the trigger's mediaUrl gives the photo as binary data: its bytes, type and file name", async () => {
    const png = Buffer.from(PNG_1x1, 'base64');
    const message = await receiveFile(account, 'image/png', png);
    const mediaId = message.media.mediaId;
    // A Message Received event's item, as the trigger outputs it.
    const run = await runLeadChat(host, download('={{ $json.mediaUrl }}'), [
      { json: { event: 'message_received', messageId: message.id, mediaUrl: message.media.url } },
    ]);
    expect(run.error).toBeUndefined();
    const [item] = run.output('LeadChat');
    expect(item!.json).toEqual({ mediaId, contentType: 'image/png', fileName: `${mediaId}.png`, size: png.length });
    expect(item!.pairedItem).toEqual({ item: 0 });
    const file = item!.binary!.data!;
    expect(file).toMatchObject({ mimeType: 'image/png', fileName: `${mediaId}.png`, fileExtension: 'png' });
    expect(Buffer.from(file.data, 'base64').equals(png)).toBe(true);
  });

  test('a Media ID, or the media URL made absolute on the Base URL, gives the file in the field named', async () => {
    const message = await receiveFile(account, 'application/pdf', PDF);
    const mediaId = message.media.mediaId;
    const absolute = `${new URL(gw.apiBase).origin}${message.media.url}`;
    const run = await runLeadChat(host, download('={{ $json.media }}', { binaryPropertyName: 'quote' }), [
      { json: { media: mediaId } },
      { json: { media: absolute } },
    ]);
    expect(run.error).toBeUndefined();
    const items = run.output('LeadChat');
    expect(items).toHaveLength(2);
    for (const [index, item] of items.entries()) {
      expect(item.pairedItem).toEqual({ item: index });
      expect(item.json).toEqual({
        mediaId,
        contentType: 'application/pdf',
        fileName: `${mediaId}.pdf`,
        size: PDF.length,
      });
      expect(Object.keys(item.binary!)).toEqual(['quote']);
      expect(item.binary!.quote!.mimeType).toBe('application/pdf');
      expect(Buffer.from(item.binary!.quote!.data, 'base64').equals(PDF)).toBe(true);
    }
  });

  test("another account's file, or one of a contact erased since, is not found, naming its ID", async () => {
    const other = await createAccount(gw);
    const theirs = await receiveFile(other, 'image/png', Buffer.from(PNG_1x1, 'base64'));
    const run = await runLeadChat(host, download(theirs.media.mediaId));
    expect(run.error?.message).toBe(`LeadChat: File ${theirs.media.mediaId} not found`);
    expect(run.error?.description).toMatch(
      new RegExp(
        `^HTTP 404 MEDIA_NOT_FOUND from GET /media/${theirs.media.mediaId}\\. No file ${theirs.media.mediaId} in this account`,
      ),
    );

    const mine = await receiveFile(account, 'image/png', Buffer.from(PNG_1x1, 'base64'), 'visitor-erased');
    expect((await runLeadChat(host, download(mine.media.url))).error).toBeUndefined();
    expect((await request(gw, 'DELETE', `/v1/contacts/${mine.contactId}`, { apiKey: account.apiKey })).status).toBe(
      204,
    );
    const erased = await runLeadChat(host, download(mine.media.url));
    expect(erased.error?.message).toBe(`LeadChat: File ${mine.media.mediaId} not found`);
  });

  describe('an address on another server', () => {
    let elsewhere: Server;
    let elsewhereUrl: string;
    const seen: string[] = [];

    beforeAll(async () => {
      elsewhere = createServer((req, res) => {
        seen.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)}`);
        res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from(PNG_1x1, 'base64'));
      });
      await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
      elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
    });

    test('is refused before any request: the API key goes nowhere but the Base URL', async () => {
      const message = await receiveFile(account, 'image/png', Buffer.from(PNG_1x1, 'base64'));
      // The same path on another server, as a public link a contact sent would come.
      const run = await runLeadChat(host, download(`${elsewhereUrl}${message.media.url}`));
      expect(run.error?.message).toBe(`The file at ${new URL(elsewhereUrl).host} is not kept by LeadChat`);
      expect(run.error?.description).toMatch(/download it with an HTTP Request node, which sends no LeadChat key/);
      expect(seen).toEqual([]);
    });

    test('Continue On Fail: each failing item is an error item paired to it, the others get their file', async () => {
      const message = await receiveFile(account, 'image/png', Buffer.from(PNG_1x1, 'base64'));
      const run = await runLeadChat(
        host,
        download('={{ $json.mediaUrl }}'),
        [
          { json: { mediaUrl: `${elsewhereUrl}/photo.png?token=secret` } },
          { json: { mediaUrl: message.media.url } },
          { json: { mediaUrl: 'med_NoSuchFile000000000' } },
          { json: { mediaUrl: null } },
          { json: { mediaUrl: 'whatsapp-media:1234567890' } },
        ],
        { onError: 'continueRegularOutput' },
      );
      expect(run.error).toBeUndefined();
      const items = run.output('LeadChat');
      expect(items.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3, 4].map((item) => ({ item })));
      expect(items[0]!.json).toEqual({
        error: `The file at ${new URL(elsewhereUrl).host} is not kept by LeadChat`,
        details: expect.stringMatching(/^Only a file of the credential's Base URL/),
      });
      expect(items[0]!.binary).toBeUndefined();
      expect(items[1]!.json).toMatchObject({ mediaId: message.media.mediaId, contentType: 'image/png' });
      expect(items[1]!.binary!.data!.mimeType).toBe('image/png');
      expect(items[2]!.json).toEqual({
        error: 'LeadChat: File med_NoSuchFile000000000 not found',
        details: expect.stringMatching(/No file med_NoSuchFile000000000 in this account/),
        httpCode: '404',
        errorCode: 'MEDIA_NOT_FOUND',
      });
      expect(items[3]!.json).toEqual({
        error: 'No file to download: Media URL or ID is empty',
        details: expect.stringMatching(/The message carries no file/),
      });
      expect(items[4]!.json).toMatchObject({ error: 'The whatsapp-media file is not kept by LeadChat' });
      expect(seen).toEqual([]);
    });
  });

  test("a refused key fails in the API's words, as every operation does, and never shows the key", async () => {
    const message = await receiveFile(account, 'image/png', Buffer.from(PNG_1x1, 'base64'));
    const wrongKey = 'lc_live_not_this_key_0123456789';
    const refused = await createHost({ leadChatApi: { baseUrl: gw.apiBase, apiKey: wrongKey, ignoreSslIssues: true } });
    const run = await runLeadChat(refused, download(message.media.url));
    expect(run.error?.message).toBe('LeadChat: Invalid or missing API key');
    expect(run.error?.description).toMatch(
      new RegExp(`^HTTP 401 UNAUTHORIZED from GET /media/${message.media.mediaId}\\. Check the API Key`),
    );
    expect(JSON.stringify(run.run.data)).not.toContain(wrongKey);
  });

  test('a Message ID is told apart from a file, before any request', async () => {
    const run = await runLeadChat(host, download('msg_V1StGXR8Z5jdHi6B'));
    expect(run.error?.message).toBe('msg_V1StGXR8Z5jdHi6B is a Message ID, not a file');
    expect(run.error?.description).toMatch(/the mediaUrl of the trigger's Message Received event/);
  });
});
