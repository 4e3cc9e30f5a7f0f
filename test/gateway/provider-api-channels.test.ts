import path from 'node:path';
import { gatewayModule } from '../helpers/gateway-modules';

type CustomModule = typeof import('../../gateway/src/providers/channels/custom-adapter.js', {
  with: { 'resolution-mode': 'import' }
});
type LogModule = typeof import('../../gateway/src/providers/channels/log-adapter.js', {
  with: { 'resolution-mode': 'import' }
});
type ReceiveModule = typeof import('../../gateway/src/engine/receive.js', { with: { 'resolution-mode': 'import' } });

const dist = path.resolve(__dirname, '../../gateway/dist');

let custom: CustomModule;
let log: LogModule;
let receive: ReceiveModule;
beforeAll(async () => {
  custom = (await gatewayModule(path.join(dist, 'providers/channels/custom-adapter.js'))) as CustomModule;
  log = (await gatewayModule(path.join(dist, 'providers/channels/log-adapter.js'))) as LogModule;
  receive = (await gatewayModule(path.join(dist, 'engine/receive.js'))) as ReceiveModule;
});

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

describe('the custom channel adapter', () => {
  const post = {
    customData: { id: 'ext-1', fromId: 'user-7', toId: 'biz', body: 'Hello', channel: 'webchat', firstName: 'Ana' },
    messageType: 'reaction' as const,
  };

  it('takes its caller as verified (the API key proved it) and reads the post into one message', async () => {
    const adapter = custom.createCustomChannelAdapter({ maxBytes: 1024 });
    expect(await adapter.verify({ body: post })).toBe(true);
    expect(adapter.subscribe({})).toBeUndefined();
    const { entries, refused } = adapter.entries({ body: post });
    expect(refused).toEqual([]);
    expect(entries).toMatchObject([{ kind: 'message', key: 'ext-1', sender: 'user-7' }]);
    const { messages, statuses, readMarks } = adapter.parse(entries[0]!);
    expect(messages).toEqual([
      expect.objectContaining({
        messageSid: 'ext-1',
        fromId: 'user-7',
        toId: 'biz',
        body: 'Hello',
        channel: 'webchat',
        firstName: 'Ana',
        messageType: 'reaction',
      }),
    ]);
    expect([statuses, readMarks]).toEqual([[], []]);
    expect(await receive.messageOfPost(adapter, post)).toEqual(messages[0]);
    expect(await adapter.profile('user-7')).toBeUndefined();
  });

  it('reads an embedded file, held to its declared type and the size limit, and leaves an address alone', async () => {
    const adapter = custom.createCustomChannelAdapter({ maxBytes: 1024 });
    const file = await adapter.readFile(`data:image/png;base64,${PNG}`, 'image/png');
    expect(file?.contentType).toBe('image/png');
    expect(file?.bytes.subarray(1, 4).toString()).toBe('PNG');
    await expect(adapter.readFile(`data:image/png;base64,${PNG}`, 'application/pdf')).rejects.toMatchObject({
      status: 400,
      code: 'MEDIA_TYPE_MISMATCH',
    });
    await expect(
      custom.createCustomChannelAdapter({ maxBytes: 10 }).readFile(`data:image/png;base64,${PNG}`, 'image/png'),
    ).rejects.toMatchObject({ status: 413 });
    expect(await adapter.readFile('https://files.example.com/a.png', 'image/png')).toBeUndefined();
  });

  it('has no send of its own: its replies leave as signed webhook deliveries (api-send-delivery tests them)', () => {
    expect(Object.keys(custom.createCustomChannelAdapter({ maxBytes: 1024 }))).not.toContain('send');
  });
});

describe('the log channel adapter', () => {
  it("reads a posted message as its channel's, with or without a messageSid, and only logs what it sends", async () => {
    const adapter = log.createLogChannelAdapter('whatsapp');
    expect(await adapter.verify({ body: { phone: '+15550001111', body: 'Hi' } })).toBe(true);
    expect(await receive.messageOfPost(adapter, { phone: '+15550001111', body: 'Hi', messageSid: 'SM1' })).toEqual({
      channel: 'whatsapp',
      providerMessageId: 'SM1',
      from: '+15550001111',
      body: 'Hi',
      media: [],
      profileName: null,
      sentAt: null,
    });
    expect((await receive.messageOfPost(adapter, { phone: '+15550001111', body: 'Hi' })).providerMessageId).toBeNull();
    expect(adapter.entries({ body: { phone: '+15550001111', body: 'Hi' } }).entries).toMatchObject([
      { key: null, sender: '+15550001111' },
    ]);
    expect(() => adapter.parse({ kind: 'message', where: 'body', key: null, sender: null, raw: {} })).toThrow(
      expect.objectContaining({ status: 400 }),
    );
    expect(await adapter.readFile('https://x.example/a.png')).toBeUndefined();
    expect(
      await adapter.send({ messageId: 'msg_9', channel: 'whatsapp', to: '+15550001111', body: 'x', template: null }),
    ).toEqual({ providerMessageId: 'log_msg_9' });
  });
});
