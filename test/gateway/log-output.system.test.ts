import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, GATEWAY_MAIN, removeDir, startGateway, tempDir } from '../helpers/gateway';
import { logLines } from '../helpers/log-lines';
import { gatewayModule } from '../helpers/gateway-modules';

type LockModule = typeof import('../../gateway/src/lock.js', { with: { 'resolution-mode': 'import' } });

/**
 * What the gateway writes, as a log shipper and a person read it: JSON lines only when its output is not a terminal
 * (the start-up facts as fields, Node's own warnings, a fault nothing caught, a refused start, the shutdown), plain
 * lines at a terminal.
 */
jest.setTimeout(60_000);

const work = tempDir('leadchat-log-output-');
afterAll(() => removeDir(work));

/** Loaded before the gateway (NODE_OPTIONS): raises a Node warning when told, as a dependency of the gateway might. */
const warner = path.join(work, 'warn-on-signal.cjs');
writeFileSync(
  warner,
  "process.on('SIGUSR2', () => process.emitWarning('a dependency did something deprecated', 'DeprecationWarning', 'DEP0999'));\n",
);

async function until(what: string, check: () => boolean): Promise<void> {
  for (let tries = 0; !check(); tries++) {
    if (tries === 400) throw new Error(`still waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Runs `leadchat-gateway serve` (in a terminal: through `script`) until it exits by itself, or is stopped once `stopWhen` holds. */
function run(
  env: Record<string, string>,
  { terminal = false, stopWhen }: { terminal?: boolean; stopWhen?: (output: string) => boolean } = {},
): Promise<{ code: number | null; output: string }> {
  // exec: the gateway, not a shell waiting for it, is what the terminal signals.
  const command = `exec ${process.execPath} ${GATEWAY_MAIN} serve`;
  const child = terminal
    ? spawn('script', ['-qefc', command, '/dev/null'], { env: { PATH: process.env.PATH ?? '', TERM: 'dumb', ...env } })
    : spawn(process.execPath, [GATEWAY_MAIN, 'serve'], { env: { PATH: process.env.PATH ?? '', ...env } });
  let output = '';
  let stopped = false;
  return new Promise((resolve) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      // At a terminal, as a person stops it: Ctrl-C, which the terminal turns into SIGINT.
      if (!stopped && stopWhen?.(output)) {
        stopped = true;
        if (terminal) child.stdin.write('\x03');
        else child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('close', (code) => resolve({ code, output: output.replaceAll('\r\n', '\n') }));
  });
}

test('not at a terminal, every line is JSON: the start-up facts, a Node warning, the shutdown', async () => {
  const gw = await startGateway({ LEADCHAT_LOG_LEVEL: 'info', NODE_OPTIONS: `--require ${warner}` });
  try {
    gw.process.kill('SIGUSR2');
    await until('the warning', () => gw.output().includes('DEP0999'));
  } finally {
    expect(await gw.stop()).toBe(0);
    removeDir(gw.dataDir);
  }
  const lines = logLines(gw.output());
  expect(lines.find((line) => line.msg === 'process warning')).toEqual(
    expect.objectContaining({
      level: 40,
      warning: { name: 'DeprecationWarning', code: 'DEP0999', message: 'a dependency did something deprecated' },
    }),
  );
  expect(lines).toContainEqual(expect.objectContaining({ level: 30, msg: 'shutting down', signal: 'SIGTERM' }));
  // Node's own printer would have written "(node:PID) [DEP0999] DeprecationWarning: …" to stderr.
  expect(gw.output()).not.toContain('(node:');
});

test('a fault nothing caught is a JSON line with its stack, and the process exits 1', async () => {
  const crasher = path.join(work, 'throw-on-signal.cjs');
  writeFileSync(crasher, "process.on('SIGUSR2', () => { throw new Error('nothing caught this'); });\n");
  const gw = await startGateway({ NODE_OPTIONS: `--require ${crasher}` });
  try {
    const exited = new Promise<number | null>((resolve) => gw.process.once('exit', resolve));
    gw.process.kill('SIGUSR2');
    expect(await exited).toBe(1);
  } finally {
    removeDir(gw.dataDir);
  }
  const lines = logLines(gw.output());
  expect(lines.at(-1)).toEqual(
    expect.objectContaining({
      level: 60,
      msg: 'the gateway stopped on a fault nothing caught',
      err: expect.objectContaining({
        message: 'nothing caught this',
        stack: expect.stringContaining('throw-on-signal'),
      }),
    }),
  );
});

/**
 * Runs `leadchat-gateway serve` on 127.0.0.1 at a free port (unless `env` names others), which must refuse to start:
 * it exits with 1 and writes one line, that it could not start. Answers the line's reason, and all the output.
 */
async function refusedStart(env: Record<string, string>): Promise<{ reason: unknown; output: string }> {
  const refused = await run({ LEADCHAT_HOST: '127.0.0.1', LEADCHAT_PORT: String(await freePort()), ...env });
  expect(refused.code).toBe(1);
  const lines = logLines(refused.output);
  expect(lines).toEqual([expect.objectContaining({ level: 60, msg: 'the gateway could not start' })]);
  return { reason: lines[0]!.reason, output: refused.output };
}

test('a refused start is a JSON line too: an invalid setting, a data dir another gateway holds', async () => {
  const invalid = await run({ LEADCHAT_PORT: 'abc', LEADCHAT_DATA_DIR: path.join(work, 'never') });
  expect(invalid.code).toBe(1);
  expect(logLines(invalid.output)).toEqual([
    expect.objectContaining({
      level: 60,
      msg: 'invalid configuration',
      reason: expect.stringMatching(/^LEADCHAT_PORT=/),
    }),
  ]);

  const first = await startGateway();
  try {
    const second = await refusedStart({ LEADCHAT_DATA_DIR: first.dataDir, LEADCHAT_ADMIN_TOKEN: first.adminToken });
    expect(second.reason).toBe(
      `Another gateway (pid ${first.process.pid}) is using the data dir ${first.dataDir}; stop it first`,
    );
  } finally {
    await first.stop();
    removeDir(first.dataDir);
  }
});

test('a data dir where the system makes no directory refuses the start, naming the parent that takes none', async () => {
  // procfs answers ENOENT to a new directory under it, which sends Node's recursive mkdir round for ever.
  const parent = `/proc/leadchat-${process.pid}`;
  const refused = await refusedStart({ LEADCHAT_DATA_DIR: `${parent}/data` });
  expect(refused.reason).toBe(`cannot create ${parent}: /proc takes no new directory`);
});

test('at a terminal, a person reads plain lines: the start-up facts as key=value, no JSON', async () => {
  const dataDir = path.join(work, 'terminal');
  const port = await freePort();
  const { code, output } = await run(
    { LEADCHAT_HOST: '127.0.0.1', LEADCHAT_PORT: String(port), LEADCHAT_DATA_DIR: dataDir },
    { terminal: true, stopWhen: (out) => out.includes('listening on') },
  );
  expect(code).toBe(0);
  const lines = output.split('\n').filter((line) => line !== '');
  const url = `https://127.0.0.1:${port}`;
  expect(lines[0]).toMatch(
    new RegExp(
      `^\\d\\d:\\d\\d:\\d\\d INFO LeadChat gateway listening on ${url} version=\\S+ commit=\\S+ store=lowdb url=${url} ` +
        `api=${url}/v1 console=${url}/console dataDir=${dataDir} certificate="${path.join(dataDir, 'tls', 'cert.pem')} \\(self-signed, generated now\\)" ` +
        `adminTokenFrom=${path.join(dataDir, 'admin-token')}$`,
    ),
  );
  // The terminal echoes the Ctrl-C ("^C") before the line.
  expect(lines).toContainEqual(
    expect.stringMatching(/^(\^C)?\d\d:\d\d:\d\d INFO shutting down signal=SIGINT delayMs=0$/),
  );
  expect(output).not.toContain('{"level"');
});

test('an address the gateway cannot listen on refuses the start, naming LEADCHAT_HOST and LEADCHAT_PORT', async () => {
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as net.AddressInfo).port;
  try {
    for (const [host, why] of [
      ['gateway-host.invalid', 'getaddrinfo ENOTFOUND gateway-host.invalid'],
      ['127.0.0.1', `listen EADDRINUSE: address already in use 127.0.0.1:${port}`],
    ]) {
      const refused = await refusedStart({
        LEADCHAT_HOST: host!,
        LEADCHAT_PORT: String(port),
        LEADCHAT_DATA_DIR: path.join(work, 'unlistened'),
      });
      expect(refused.reason).toBe(`cannot listen on LEADCHAT_HOST=${host} LEADCHAT_PORT=${port}: ${why}`);
    }
  } finally {
    taken.close();
  }
  // An IPv6 address written in brackets, as in a URL, is that address.
  const free = await freePort();
  const bracketed = await run(
    { LEADCHAT_HOST: '[::1]', LEADCHAT_PORT: String(free), LEADCHAT_DATA_DIR: path.join(work, 'bracketed') },
    { stopWhen: (out) => out.includes('listening on') },
  );
  expect(bracketed.code).toBe(0);
  expect(logLines(bracketed.output)[0]).toEqual(expect.objectContaining({ url: `https://[::1]:${free}` }));
});

test('a data dir that is a file, or under one, refuses the start, naming the file', async () => {
  const file = path.join(work, 'data-is-a-file');
  writeFileSync(file, 'not a directory\n');
  for (const dataDir of [file, path.join(file, 'data')]) {
    const refused = await refusedStart({ LEADCHAT_DATA_DIR: dataDir });
    expect(refused.reason).toBe(`cannot create ${file}: a file of that name is in the way`);
  }
});

test("a data dir the gateway's user cannot write refuses the start, saying whose it must be and the command that makes it so", async () => {
  // The tests run as root, whom no owner or mode stops: the store's fault layer (LEADCHAT_TEST_FULL_DISK) refuses
  // the first file the gateway makes in the data dir, its lock, as the system would.
  const user = os.userInfo().username;
  const dataDir = path.join(work, 'unwritable');
  const flag = path.join(work, 'fault-EACCES');
  writeFileSync(flag, 'EACCES');
  const refused = await refusedStart({ LEADCHAT_DATA_DIR: dataDir, LEADCHAT_TEST_FULL_DISK: flag });
  // The system's own words last (the fault layer's name no file; the system's name the lock's temporary one).
  expect(refused.reason).toBe(
    `the data dir ${dataDir} (LEADCHAT_DATA_DIR) cannot be written by the user the gateway runs as, ${user}: make it that user's, e.g. chown -R ${user}: ${dataDir} (a restore run as root leaves it root's) (EACCES: permission denied, open)`,
  );
});

test('a data dir on a read-only file system, or with an immutable attribute, is said with how to mend it', async () => {
  const { unwritableDataDir } = (await gatewayModule(
    path.resolve(__dirname, '../../gateway/dist/lock.js'),
  )) as LockModule;
  const refusal = (code: string, words: string) =>
    (unwritableDataDir('/srv/leadchat', Object.assign(new Error(`${code}: ${words}, open`), { code })) as Error)
      .message;
  expect(refusal('EROFS', 'read-only file system')).toBe(
    'the data dir /srv/leadchat (LEADCHAT_DATA_DIR) is on a read-only file system: mount it read-write, or set LEADCHAT_DATA_DIR to a writable directory (under a systemd unit with ProtectSystem=strict, one its ReadWritePaths names) (EROFS: read-only file system, open)',
  );
  expect(refusal('EPERM', 'operation not permitted')).toBe(
    'the data dir /srv/leadchat (LEADCHAT_DATA_DIR) refuses changes to its files (an immutable or append-only attribute): lsattr -d /srv/leadchat shows it, chattr -R -i -a /srv/leadchat removes it (EPERM: operation not permitted, open)',
  );
  // Anything else is the system's as it is.
  const other = Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
  expect(unwritableDataDir('/srv/leadchat', other)).toBe(other);
});

test('a database the gateway cannot reach refuses the start, naming LEADCHAT_DATABASE_URL without its password and what to check', async () => {
  const port = await freePort();
  const refused = await refusedStart({
    LEADCHAT_DATA_DIR: path.join(work, 'no-database'),
    LEADCHAT_ADMIN_TOKEN: 'an-admin-token-0123456789',
    LEADCHAT_DATABASE_URL: `postgres://leadchat:hunter2-db@127.0.0.1:${port}/leadchat`,
  });
  expect(refused.reason).toBe(
    `cannot open LEADCHAT_DATABASE_URL=postgres://leadchat:***@127.0.0.1:${port}/leadchat: connect ECONNREFUSED 127.0.0.1:${port}; check that PostgreSQL runs and listens at 127.0.0.1:${port} (listen_addresses, port), that this machine may connect to it (pg_hba.conf, a firewall), and that the URL names the right host and port`,
  );
  expect(refused.output).not.toContain('hunter2-db');
});

test("at a terminal, text from outside in a line is shown, never obeyed: a terminal's escapes and direction marks are written as their codes", async () => {
  type Log = typeof import('../../gateway/src/log.js', { with: { 'resolution-mode': 'import' } });
  const { createLogger } = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/log.js'))) as Log;
  const written: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    // A custom channel's id that retitles the window and clears the screen, a name that reads backwards from its mark.
    createLogger('info', true).info(
      { fromId: 'visitor\u001b]0;owned\u0007\u001b[2J', name: 'Ann\u202egnp.exe', csi: 'x\u009b31m', plain: 'chat-42' },
      'message received',
    );
  } finally {
    write.mockRestore();
  }
  expect(written).toHaveLength(1);
  expect(written[0]).toMatch(
    /^\d\d:\d\d:\d\d INFO message received fromId="visitor\\u001b\]0;owned\\u0007\\u001b\[2J" name="Ann\\u202egnp\.exe" csi="x\\u009b31m" plain=chat-42\n$/,
  );
});

test("an error's stack quoting text from outside: at a terminal each line is shown, none obeyed nor passing for an entry; in JSON it is one line", async () => {
  type Log = typeof import('../../gateway/src/log.js', { with: { 'resolution-mode': 'import' } });
  const { createLogger } = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/log.js'))) as Log;
  // A field of a request quoted in the error's message: an escape that retitles the window, then a forged entry.
  const err = new Error('name "Ann\u001b]0;owned\u0007\u202e" is invalid\n09:00:00 INFO admin token rotated\r\n');
  const written: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    createLogger('info', true).error({ err, contactId: 'c_1' }, 'webhook refused');
    // An err that is no error has no stack: it is a field.
    createLogger('info', true).warn({ err: 'refused\u001b[2J' }, 'webhook refused');
  } finally {
    write.mockRestore();
  }
  const lines = written.join('').split('\n');
  expect(lines.slice(0, 4)).toEqual([
    expect.stringMatching(/^\d\d:\d\d:\d\d ERROR webhook refused contactId=c_1$/),
    '  Error: name "Ann\\u001b]0;owned\\u0007\\u202e" is invalid',
    '  09:00:00 INFO admin token rotated',
    '  ',
  ]);
  // Node's frames, as they are, one a line.
  expect(lines[4]).toMatch(/^ {4}at .*log-output\.system\.test\.ts:\d+:\d+\)?$/);
  expect(lines.slice(-2)).toEqual([
    expect.stringMatching(/^\d\d:\d\d:\d\d WARN webhook refused err="refused\\u001b\[2J"$/),
    '',
  ]);
  expect(lines.filter((line) => /^\d\d:\d\d:\d\d /.test(line))).toHaveLength(2);
  expect(written.join('').replaceAll('\n', '')).not.toMatch(/[\p{Cc}\p{Cf}]/u);

  // Not at a terminal: one JSON line, whose stack is the error's, every character of it.
  const json: string[] = [];
  createLogger('info', false, { write: (line: string) => void json.push(line) }).error({ err }, 'webhook refused');
  expect(json).toHaveLength(1);
  expect(json[0]!.indexOf('\n')).toBe(json[0]!.length - 1);
  expect(logLines(json[0]!)).toEqual([
    expect.objectContaining({ level: 50, msg: 'webhook refused', err: expect.objectContaining({ stack: err.stack }) }),
  ]);
});

test('a JSON line holds a line separator or paragraph separator from outside as its escape: a reader splitting lines there still reads one entry', async () => {
  type Log = typeof import('../../gateway/src/log.js', { with: { 'resolution-mode': 'import' } });
  const { createLogger } = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/log.js'))) as Log;
  // A lead's text with U+2028 and U+2029, in a field, a key and the message.
  const fields = { body: 'Hi\u2028there\u2029again', ['note\u2028']: 'x', plain: 'chat-42' };
  const json: string[] = [];
  const log = createLogger('info', false, { write: (line: string) => void json.push(line) });
  log.info(fields, 'message\u2029received');
  log.info({ plain: 'chat-43' }, 'nothing to escape');
  expect(json).toHaveLength(2);
  expect(json[0]).not.toMatch(/[\u2028\u2029]/);
  expect(json[0]).toContain('Hi\\u2028there\\u2029again');
  // As Python's str.splitlines() reads it (breaking at these, among others): one line each, given back as it was.
  const lines = json
    .join('')
    .split(/\r\n|[\n\r\u2028\u2029]/)
    .filter((line) => line !== '');
  expect(lines).toHaveLength(2);
  expect(JSON.parse(lines[0]!)).toMatchObject({ ...fields, msg: 'message\u2029received' });
  expect(JSON.parse(lines[1]!)).toMatchObject({ plain: 'chat-43', msg: 'nothing to escape' });
});
