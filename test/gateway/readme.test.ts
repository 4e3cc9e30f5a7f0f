import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gatewayModule } from '../helpers/gateway-modules';

type ConfigModule = typeof import('../../gateway/src/config.js', { with: { 'resolution-mode': 'import' } });

/** The gateway's configuration table is what self-hosters read: it must name every setting with its real default. */
test('gateway/README.md documents every environment variable with its default', async () => {
  const { settings } = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/config.js'))) as ConfigModule;
  const readme = readFileSync(path.resolve(__dirname, '../../gateway/README.md'), 'utf8');
  const rows = new Map(
    [...readme.matchAll(/^\| `(LEADCHAT_\w+)` \| ([^|]+) \|/gm)].map(([, name, value]) => [name, value!.trim()]),
  );
  for (const [name, setting] of Object.entries(settings as Record<string, { default?: string }>)) {
    expect({ name, value: rows.get(name) }).toEqual({
      name,
      value: setting.default === undefined ? 'unset' : `\`${setting.default}\``,
    });
  }
  expect([...rows.keys()].sort()).toEqual(Object.keys(settings).sort());
});
