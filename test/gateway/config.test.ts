import path from 'node:path';

type ConfigModule = typeof import('../../gateway/src/config.js', { with: { 'resolution-mode': 'import' } });

/** The settings as `serve` reads them: an empty value is unset, and a value that cannot be right stops start-up, named. */
const config = async () => (await import(path.resolve(__dirname, '../../gateway/dist/config.js'))) as ConfigModule;

test('an empty value is the setting left unset: its default', async () => {
  const { loadConfig } = await config();
  const given = loadConfig({ LEADCHAT_PORT: '', LEADCHAT_LOG_LEVEL: '', LEADCHAT_WEBHOOK_TARGETS: '' });
  const unset = loadConfig({});
  expect([given.port, given.logLevel, given.targetPolicy]).toEqual([unset.port, unset.logLevel, unset.targetPolicy]);
});

test('the target policy takes any, public or host names; an entry that is none stops start-up, named', async () => {
  const { loadConfig } = await config();
  expect(loadConfig({ LEADCHAT_WEBHOOK_TARGETS: 'localhost, 127.0.0.1,[::1],Hooks.Example.com' }).targetPolicy).toEqual(
    {
      kind: 'allow',
      hosts: ['localhost', '127.0.0.1', '::1', 'hooks.example.com'],
    },
  );
  for (const [value, named] of [
    ['bogus_policy', 'bogus_policy'],
    ['http://hooks.example.com', 'http://hooks.example.com'],
    ['localhost,hooks.example.com/path', 'hooks.example.com/path'],
  ])
    expect(() => loadConfig({ LEADCHAT_WEBHOOK_TARGETS: value })).toThrow(
      `LEADCHAT_WEBHOOK_TARGETS=${JSON.stringify(value)}: "${named}" is no host name`,
    );
});
