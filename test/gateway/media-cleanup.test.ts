import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dataUri, png } from './api-support';
import { gatewayModule } from '../helpers/gateway-modules';

/**
 * A message's embedded file is saved before the transaction that stores the message. When that transaction fails,
 * the file goes again: the embedded store keeps no file that no record points at.
 */
type Messages = typeof import('../../gateway/src/engine/receive.js', { with: { 'resolution-mode': 'import' } });
type Gateway = import('../../gateway/src/context.js', { with: { 'resolution-mode': 'import' } }).Gateway;
type Account = import('../../gateway/src/domain/accounts.js', { with: { 'resolution-mode': 'import' } }).Account;
const dist = (file: string) => gatewayModule(path.resolve(__dirname, '../../gateway/dist', file));

let messages: Messages;
let gw: Gateway;
let account: Account;
let close: () => Promise<void>;
let dataDir: string;

beforeAll(async () => {
  messages = await dist('engine/receive.js');
  const { loadConfig } = await dist('config.js');
  const { openStore } = await dist('store/open.js');
  const { createLogger } = await dist('log.js');
  const { createAccount } = await dist('domain/accounts.js');
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-media-'));
  const config = loadConfig({
    LEADCHAT_DATA_DIR: dataDir,
    LEADCHAT_DATABASE_URL: '',
    LEADCHAT_ADMIN_TOKEN: 'a'.repeat(40),
  });
  const log = createLogger('silent');
  const { collections } = await dist('domain/collections.js');
  const opened = await openStore(config, log, collections);
  close = opened.close;
  gw = { config, store: opened.store, log } as Gateway;
  ({ account } = await createAccount(gw, { name: 'Media', email: 'media@example.com', type: 'standard' }));
});

afterAll(async () => {
  await close?.();
  rmSync(dataDir, { recursive: true, force: true });
});

const files = () => {
  const dir = path.join(dataDir, 'media', account.id);
  return existsSync(dir) ? readdirSync(dir) : [];
};

const input = (messageSid: string) => ({
  messageSid,
  fromId: `user-${messageSid}`,
  toId: 'biz',
  body: 'a photo',
  mediaUrl: dataUri('image/png', png()),
  mediaContentType: 'image/png',
});

type Transact = Gateway['store']['transact'];

/** The gateway, with its store's methods replaced by `overrides`. */
const storeWith = (overrides: Partial<Record<'transact' | 'get', (...args: any[]) => Promise<unknown>>>) =>
  ({ ...gw, store: Object.assign(Object.create(gw.store), overrides) }) as Gateway;

test('a message stored with its file keeps the file', async () => {
  const { message } = await messages.receiveMessage(gw, account, input('kept'));
  expect(files()).toEqual([message.media!.mediaId]);
});

test.each<[string, Transact, string]>([
  ['the journal cannot be written', async () => Promise.reject(new Error('disk full')), 'disk full'],
  [
    'a rule throws after the media record was written',
    (work) =>
      gw.store.transact(async (tx) => {
        await work(tx);
        throw new Error('a rule broke');
      }),
    'a rule broke',
  ],
])('when %s, the saved file is removed again and the error reaches the caller', async (_when, transact, error) => {
  const before = files();
  await expect(
    messages.receiveMessage(storeWith({ transact }), account, input(`fail-${before.length}`)),
  ).rejects.toThrow(error);
  expect(files()).toEqual(before);
});

test('a file is kept when the store cannot tell whether a record points at it', async () => {
  const before = files();
  const unsure = storeWith({
    transact: async () => Promise.reject(new Error('connection lost during COMMIT')),
    get: async () => Promise.reject(new Error('database unavailable')),
  });
  await expect(messages.receiveMessage(unsure, account, input('unsure'))).rejects.toThrow('COMMIT');
  expect(files()).toHaveLength(before.length + 1);
});
