#!/usr/bin/env node
// npm links this file as the `leadchat-gateway` command at install time, before the gateway is built, so it
// must exist in the repository: it runs the built CLI, or says how to build it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write(
    'leadchat-gateway: the gateway is not built yet; run `npm run build` (or `npm start`) in the repository first\n',
  );
  process.exit(1);
}
await import(main.href);
