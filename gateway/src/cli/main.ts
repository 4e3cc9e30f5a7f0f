#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { buildName } from '../version.js';

// Each command's module is loaded when it runs: `--version`, `account` or `restore` start without the server's.

const USAGE = `Usage:
  leadchat-gateway serve
  leadchat-gateway --version
  leadchat-gateway account create --name NAME --email EMAIL [--agency] [--parent AGENCY_EMAIL] [--password-stdin]
  leadchat-gateway account list [--email EMAIL]   (every account, or the one of EMAIL, as JSON; no API key)
  leadchat-gateway account rotate-key --email EMAIL
  leadchat-gateway account password --email EMAIL --password-stdin   (web console sign-in; ends its sessions)
  leadchat-gateway account delete --email EMAIL [--yes]   (the account and all its data, for good: asks to type the
    email again unless --yes; waits until all is removed and prints what was; an agency's sub-accounts go first)
    --password-stdin reads the password from standard input (typed unseen, or piped); --password PASSWORD takes it
    from the command line, where the machine's process list and the shell history keep it
  leadchat-gateway member add --account ACCOUNT_EMAIL --email EMAIL --role admin|agent [--name NAME]   (prints the invitation's link)
  leadchat-gateway migrate --to postgres://USER:PASSWORD@HOST:PORT/DATABASE
  leadchat-gateway backup --to FILE   (the embedded store, of a running or stopped gateway, as a .tar.gz; it holds secrets)
  leadchat-gateway backup verify FILE   (checks an archive as restore does, every file against its checksum; changes nothing)
  leadchat-gateway restore --from FILE   (into an empty LEADCHAT_DATA_DIR, with no gateway running on it)

Configuration comes from LEADCHAT_* environment variables (see the README).`;

async function main(argv: string[]): Promise<number | undefined> {
  const [command, ...rest] = argv;
  if (command === 'serve' || command === undefined) {
    // `serve --port 9000` would otherwise start on the port the environment says, without a word.
    if (rest.length > 0)
      throw new Error(
        `serve takes no arguments (${rest.join(' ')}): it is configured by LEADCHAT_* environment variables, such as LEADCHAT_PORT=9000 (see the README)`,
      );
    return (await import('./serve.js')).serve();
  }
  if (['account', 'member', 'migrate', 'backup', 'restore'].includes(command)) {
    // Loaded with the command's own modules: `--version` and the usage stay as light as they are.
    const { unknownSettingMessage, unknownSettings } = await import('../config.js');
    for (const unknown of unknownSettings())
      process.stderr.write(`leadchat-gateway: ${unknownSettingMessage(unknown)}\n`);
  }
  if (command === '--version' || command === 'version') {
    process.stdout.write(`leadchat-gateway ${buildName()}\n`);
    return 0;
  }
  if (command === 'account') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        email: { type: 'string' },
        agency: { type: 'boolean', default: false },
        parent: { type: 'string' },
        password: { type: 'string' },
        'password-stdin': { type: 'boolean', default: false },
        yes: { type: 'boolean', default: false },
      },
    });
    const { 'password-stdin': passwordStdin, ...given } = values;
    return (await import('./account.js')).accountCommand(positionals[0], { ...given, passwordStdin });
  }
  if (command === 'member') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        account: { type: 'string' },
        email: { type: 'string' },
        name: { type: 'string' },
        role: { type: 'string' },
      },
    });
    return (await import('./account.js')).memberCommand(positionals[0], values);
  }
  if (command === 'migrate') {
    const { values } = parseArgs({ args: rest, options: { to: { type: 'string' } } });
    return (await import('./migrate.js')).migrateCommand(values.to);
  }
  if (command === 'backup' && rest[0] === 'verify') {
    const { positionals } = parseArgs({ args: rest.slice(1), allowPositionals: true, options: {} });
    return (await import('./backup.js')).verifyCommand(positionals[0]);
  }
  if (command === 'backup') {
    const { values } = parseArgs({ args: rest, options: { to: { type: 'string' } } });
    return (await import('./backup.js')).backupCommand(values.to);
  }
  if (command === 'restore') {
    const { values } = parseArgs({ args: rest, options: { from: { type: 'string' } } });
    return (await import('./restore.js')).restoreCommand(values.from);
  }
  process.stdout.write(`${USAGE}\n`);
  return command === 'help' || command === '--help' ? 0 : 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (err: Error) => {
    process.stderr.write(`leadchat-gateway: ${err.message}\n`);
    process.exitCode = 1;
  },
);
