import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  createAccount,
  removeDir,
  request,
  startGateway,
  tempDir,
  untilIdle,
  type TestGateway,
} from '../helpers/gateway';

/**
 * The documentation's commands, run exactly as printed, the way a new user types them right after
 * `npm ci && npm start`: the operator's from the repository root, the API guide's beside the data dir. Every shell
 * block of every markdown file is either run here or named below with what proves it instead.
 */

jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../..');

/** The repository's markdown files, as a fresh clone has them (and new ones not yet committed). */
const DOCUMENTS = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.md'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter(Boolean)
  .sort();

interface ShellBlock {
  /** `file › heading`: where a reader finds it. */
  where: string;
  /** Its commands, one a line: comments and blank lines left out, a line continued by `\` joined to the next. */
  commands: string[];
}

/** Every ```sh block of a markdown file, under the heading it follows. */
function shellBlocks(file: string): ShellBlock[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const blocks: ShellBlock[] = [];
  let heading = '';
  for (const [, title, language, body] of text.matchAll(/^(#{1,6} .*)$|^```(\w*)\n([\s\S]*?)^```/gm)) {
    if (title) heading = title;
    else if (language === 'sh') {
      const commands = body!
        .replace(/\\\n\s*/g, '')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line && !line.startsWith('#'));
      blocks.push({ where: `${file} › ${heading}`, commands });
    }
  }
  return blocks;
}

const BLOCKS = DOCUMENTS.flatMap(shellBlocks);

/** The commands of every shell block under a heading, in order. */
function commandsUnder(where: string): string[] {
  const found = BLOCKS.filter((block) => block.where === where);
  if (found.length === 0) throw new Error(`no shell block under ${where}`);
  return found.flatMap((block) => block.commands);
}

/** Runs one shell line as printed, in `cwd`, `typed` on its input (a line the reader types when asked). */
function sh(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  typed = '',
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile('sh', ['-c', command], { cwd, env, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(typed);
  });
}

/**
 * Runs each line in turn, `typed` on the input of each; each must exit 0 with nothing on stderr but npm's warnings.
 * Returns what each printed.
 */
async function runAll(commands: string[], cwd: string, env: NodeJS.ProcessEnv, typed?: string): Promise<string[]> {
  const printed: string[] = [];
  for (const command of commands) {
    const { code, stdout, stderr } = await sh(command, cwd, env, typed);
    expect({ command, code, stderr: stderr.replace(/npm warn.*\n/g, '') }).toEqual({ command, code: 0, stderr: '' });
    printed.push(stdout);
  }
  return printed;
}

/** A folder of its own where `leadchat-gateway` is installed as a package installs it, so files named land there. */
function installedFolder(prefix: string): string {
  const folder = tempDir(prefix);
  mkdirSync(path.join(folder, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(
    path.join(ROOT, 'gateway', 'bin', 'leadchat-gateway.js'),
    path.join(folder, 'node_modules', '.bin', 'leadchat-gateway'),
  );
  return folder;
}

/**
 * Shell blocks this file does not run, and what proves them instead. A new block fails the inventory test below
 * until it is run here or given its proof.
 */
const PROVEN_ELSEWHERE: Record<string, string> = {
  'README.md › ## Set up (Node.js ≥ 20.19)': 'CI types them on a fresh clone (.ci/run)',
  'gateway/README.md › ## Run': 'the same `npm ci && npm start` as the README, run by CI',
  'CONTRIBUTING.md › ### Running some of the tests':
    'ways to choose the tests npm run test:quick runs (scripts/test-quick.mjs), which every change is tested with',
  'docs/testing.md › ## Running some of the tests':
    'ways to choose the tests npm run test:quick runs (scripts/test-quick.mjs), and the system tier CI runs',
  'gateway/README.md › ## Install':
    'test/gateway/package-install.system.test.ts packs the gateway and installs it globally',
  'gateway/README.md › ### A systemd unit':
    'needs root and systemd; test/gateway/package-install.system.test.ts runs the installed command as the units do, the nightly backup among them',
  'gateway/README.md › ### On PostgreSQL': "PostgreSQL's own pg_dump and pg_restore, against the operator's database",
  'gateway/README.md › ## Scale out': 'test/gateway/scale-out.test.ts starts several processes on one database',
  'gateway/README.md › ### Moving from the embedded store':
    'test/gateway/migrate.test.ts runs `migrate --to` into a database',
  'docs/api.md › ## Messenger and Instagram':
    "placeholders for Meta's ids and tokens; test/gateway/api-meta-channels.test.ts",
  'docs/console.md › ## Live changes: the event stream':
    'a stream that never ends, for a session cookie; test/gateway/api-stream.test.ts',
  'docs/benchmarks.md › ## The FAQ bot': 'npm run eval:bot, a benchmark that prints its figures',
  'docs/n8n.md › ## Install':
    "installs the published package into n8n's folder; test/gateway/package-install.system.test.ts installs the packed one",
  'nodes/README.md › ## Installation':
    "installs the published package into n8n's folder; test/gateway/package-install.system.test.ts installs the packed one",
  'docs/n8n.md › ## Example workflows':
    "posts to the reader's own n8n; test/nodes/examples.test.ts runs the example workflows",
};

/** Shell blocks run by the tests of this file. */
const RUN_HERE = [
  'gateway/README.md › ## Operator bootstrap',
  'gateway/README.md › ### On the embedded store',
  'gateway/README.md › ### Deleting an account',
  'docs/console.md › ## Overview',
  'docs/console.md › ## Signing in',
  "docs/api.md › ## A contact's message from a custom channel",
  'docs/api.md › ## Campaigns: what is sent, and when',
  'docs/api.md › ## Credits',
  'docs/api.md › ## Reply delivery and webhooks',
  'docs/api.md › ## Contacts on every channel',
  'docs/api.md › ## Importing contacts into a list',
  "docs/api.md › ## Exporting a list's contacts",
  'docs/api.md › ## The AI bot',
];

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway({ LEADCHAT_ADMIN_TOKEN: '' });
});

afterAll(async () => {
  await gw?.stop();
  if (gw) removeDir(gw.dataDir);
});

test('npm links the command to a file of the repository, not to a build output that does not exist at install time', () => {
  const linked = realpathSync(path.join(ROOT, 'node_modules/.bin/leadchat-gateway'));
  const relative = path.relative(ROOT, linked);
  const staged = execFileSync('git', ['ls-files', '--stage', '--', relative], { cwd: ROOT, encoding: 'utf8' });
  expect({ relative, mode: staged.split(' ')[0] }).toEqual({
    relative: 'gateway/bin/leadchat-gateway.js',
    mode: '100755',
  });
});

test('the operator bootstrap commands work as printed', async () => {
  const commands = commandsUnder('gateway/README.md › ## Operator bootstrap');
  expect(commands).toEqual([
    expect.stringMatching(/^npx leadchat-gateway account create .*--agency --password-stdin$/),
    expect.stringMatching(/^npx leadchat-gateway account create .*--parent .* --password-stdin$/),
    expect.stringMatching(/^npx leadchat-gateway account rotate-key /),
    expect.stringMatching(/^npx leadchat-gateway member add /),
  ]);
  const env = { ...process.env, LEADCHAT_URL: gw.url, LEADCHAT_DATA_DIR: gw.dataDir, LEADCHAT_ADMIN_TOKEN: '' };
  // The password each `account create` asks for, as the operator types it.
  const typed = 'the agency passphrase\n';
  const printed = (await runAll(commands, ROOT, env, typed)).map((stdout) => JSON.parse(stdout));
  const [agency, client, rotated, member] = printed;
  expect(agency).toEqual(
    expect.objectContaining({ email: 'ops@acme.example', type: 'agency', apiKey: expect.any(String) }),
  );
  expect(client).toEqual(
    expect.objectContaining({ email: 'client@example.com', type: 'standard', parentId: agency.id }),
  );
  expect(rotated).toEqual({ apiKey: expect.any(String) });
  expect((await request(gw, 'GET', '/v1/credits', { apiKey: rotated.apiKey })).status).toBe(200);
  expect((await request(gw, 'GET', '/v1/credits', { apiKey: client.apiKey })).status).toBe(401);
  expect(member).toEqual(
    expect.objectContaining({
      email: 'dana@example.com',
      role: 'agent',
      status: 'invited',
      inviteUrl: expect.stringContaining('/console/invite#'),
    }),
  );
  const team = await request(gw, 'GET', '/v1/members', { apiKey: rotated.apiKey });
  expect(team.body.data.map((m: { email: string }) => m.email)).toEqual(['client@example.com', 'dana@example.com']);
  const signIn = await request(gw, 'POST', '/console/api/session', {
    headers: { origin: gw.url },
    body: { email: 'ops@acme.example', password: typed.trim() },
  });
  expect(signIn.status).toBe(200);
});

test('the account deletion command works as printed: asked for the email again, the account goes with its data', async () => {
  const commands = commandsUnder('gateway/README.md › ### Deleting an account');
  expect(commands).toEqual(['npx leadchat-gateway account delete --email client@example.com']);
  const adminToken = readFileSync(path.join(gw.dataDir, 'admin-token'), 'utf8').trim();
  const accounts = async () =>
    (
      await request(gw, 'GET', '/admin/v1/accounts', {
        headers: { authorization: `Bearer ${adminToken}` },
        query: { email: 'client@example.com' },
      })
    ).body.data;
  // The client of the bootstrap above, or one of that email when this test runs alone.
  const client =
    (await accounts())[0] ??
    (await createAccount({ ...gw, adminToken }, { email: 'client@example.com', name: 'Client' }));
  const env = { ...process.env, LEADCHAT_URL: gw.url, LEADCHAT_DATA_DIR: gw.dataDir, LEADCHAT_ADMIN_TOKEN: '' };
  const { code, stdout, stderr } = await sh(commands[0]!, ROOT, env, 'client@example.com\n');
  expect({ code, stderr }).toEqual({ code: 0, stderr: expect.stringContaining('Type its email to confirm') });
  expect(JSON.parse(stdout)).toEqual(expect.objectContaining({ accountId: client.id, status: 'done' }));
  expect(await accounts()).toEqual([]);
});

test('the embedded store backup and restore commands work as printed', async () => {
  const commands = commandsUnder('gateway/README.md › ### On the embedded store');
  expect(commands).toEqual([
    'npx leadchat-gateway backup --to leadchat-backup.tar.gz',
    'npx leadchat-gateway backup verify leadchat-backup.tar.gz',
    'LEADCHAT_DATA_DIR=./data-restored npx leadchat-gateway restore --from leadchat-backup.tar.gz',
  ]);
  const folder = installedFolder('leadchat-readme-backup-');
  try {
    const env = { ...process.env, LEADCHAT_URL: gw.url, LEADCHAT_DATA_DIR: gw.dataDir, LEADCHAT_ADMIN_TOKEN: '' };
    const [backup, verified, restore] = (await runAll(commands, folder, env)).map((stdout) => JSON.parse(stdout));
    expect(verified).toEqual(
      expect.objectContaining({ verified: path.join(folder, 'leadchat-backup.tar.gz'), checked: expect.any(String) }),
    );
    expect(backup).toEqual(
      expect.objectContaining({
        backup: path.join(folder, 'leadchat-backup.tar.gz'),
        manifest: expect.objectContaining({ storeFormat: 3 }),
      }),
    );
    expect(restore).toEqual(expect.objectContaining({ restored: path.join(folder, 'data-restored') }));
    expect(
      ['admin-token', 'format', 'store', 'tls'].filter((name) => !existsSync(path.join(folder, 'data-restored', name))),
    ).toEqual([]);
  } finally {
    removeDir(folder);
  }
});

test('what the backup commands make in a clone is ignored by git, as the data dir is: the archive holds secrets', () => {
  const commands = commandsUnder('gateway/README.md › ### On the embedded store');
  const archives = commands.flatMap((command) => [...command.matchAll(/--to (\S+)/g)].map((m) => m[1]!));
  const dataDirs = [
    'data',
    ...commands.flatMap((command) => [...command.matchAll(/LEADCHAT_DATA_DIR=(\S+)/g)].map((m) => m[1]!)),
  ];
  expect({ archives, dataDirs }).toEqual({
    archives: ['leadchat-backup.tar.gz'],
    dataDirs: ['data', './data-restored'],
  });
  const made = [...archives, ...dataDirs.map((dir) => path.join(dir, 'admin-token'))];
  const ignored = (file: string) => {
    try {
      execFileSync('git', ['check-ignore', '--no-index', '--quiet', file], { cwd: ROOT });
      return true;
    } catch {
      return false;
    }
  };
  expect(made.filter((file) => !ignored(file))).toEqual([]);
});

test("the console guide's password commands work as printed: the owner then signs in with the last one", async () => {
  const commands = [
    ...commandsUnder('docs/console.md › ## Signing in'),
    ...commandsUnder('docs/console.md › ## Overview'),
  ];
  const cli = commands.filter((command) => command.startsWith('npx leadchat-gateway '));
  const api = commands.filter((command) => !cli.includes(command));
  expect(api).toEqual([
    expect.stringMatching(
      /^curl --cacert data\/tls\/cert\.pem -X PUT "https:\/\/localhost:8443\/admin\/v1\/accounts\/\$ACCOUNT_ID\/password" /,
    ),
  ]);
  expect(cli).toEqual([
    expect.stringMatching(/^npx leadchat-gateway account create .*--email owner@acme\.example --password-stdin$/),
    expect.stringMatching(/^npx leadchat-gateway account password --email owner@acme\.example --password-stdin$/),
    expect.stringMatching(/^npx leadchat-gateway account password --email owner@acme\.example --password-stdin$/),
  ]);
  const env = { ...process.env, LEADCHAT_URL: gw.url, LEADCHAT_DATA_DIR: gw.dataDir, LEADCHAT_ADMIN_TOKEN: '' };
  const typed = 'a long passphrase\n';
  const [created, ...passwords] = (await runAll(cli, ROOT, env, typed)).map((stdout) => JSON.parse(stdout));
  expect(created).toEqual(expect.objectContaining({ email: 'owner@acme.example', apiKey: expect.any(String) }));
  expect(passwords).toEqual([
    expect.objectContaining({ email: 'owner@acme.example', passwordSet: true }),
    expect.objectContaining({ email: 'owner@acme.example', passwordSet: true }),
  ]);
  // The admin API's request, typed beside the data dir as the guide's reader does, on this gateway's port.
  const folder = tempDir('leadchat-console-guide-');
  symlinkSync(gw.dataDir, path.join(folder, 'data'));
  writeFileSync(path.join(folder, '.curlrc'), '--silent\n--show-error\n');
  try {
    const port = new URL(gw.url).port;
    const [set] = await runAll(
      api.map((command) => command.replaceAll('https://localhost:8443/', `https://localhost:${port}/`)),
      folder,
      { ...process.env, CURL_HOME: folder, ACCOUNT_ID: created.id },
    );
    expect(JSON.parse(set!)).toEqual(expect.objectContaining({ email: 'owner@acme.example', passwordSet: true }));
  } finally {
    removeDir(folder);
  }
  const password = /"password": "([^"]+)"/.exec(api.at(-1)!)![1];
  const signIn = await request(gw, 'POST', '/console/api/session', {
    headers: { origin: gw.url },
    body: { email: 'owner@acme.example', password },
  });
  expect(signIn.status).toBe(200);
});

describe("the API guide's requests work as printed, sent to this gateway's port", () => {
  /**
   * Runs one block's curl lines in a folder holding `data`, each with a new account's key; returns the answers.
   * `next` gives the variables a reader sets from an answer (a new list's id as `LIST_ID`) before the lines after it.
   */
  async function curl(
    where: string,
    extraEnv: (key: string) => Promise<Record<string, string>> = async () => ({}),
    next: (answer: any) => Record<string, string> = () => ({}),
    /** What a command answered: its output as JSON, or what it left in the folder it ran in. */
    answerOf: (output: string, folder: string) => any = (output) => JSON.parse(output),
  ) {
    const commands = commandsUnder(where);
    expect(commands.every((command) => command.startsWith('curl --cacert data/tls/cert.pem '))).toBe(true);
    const folder = tempDir('leadchat-api-guide-');
    symlinkSync(gw.dataDir, path.join(folder, 'data'));
    try {
      // The gateway keeps the admin token it generated in its data dir, as the guide's gateway does.
      const adminToken = readFileSync(path.join(gw.dataDir, 'admin-token'), 'utf8').trim();
      const { apiKey } = await createAccount({ ...gw, adminToken });
      // curl draws a progress meter on stderr when its output is not a terminal, as here; errors still show.
      writeFileSync(path.join(folder, '.curlrc'), '--silent\n--show-error\n');
      let env = { ...process.env, CURL_HOME: folder, KEY: apiKey, ...(await extraEnv(apiKey)) };
      // The guide's gateway listens on its default port; this one on a free port, under the same name.
      const port = new URL(gw.url).port;
      const local = commands.map((command) =>
        command.replaceAll('https://localhost:8443/', `https://localhost:${port}/`),
      );
      const answers = [];
      for (const command of local) {
        const answer = answerOf((await runAll([command], folder, env))[0]!, folder);
        answers.push(answer);
        env = { ...env, ...next(answer) };
      }
      return { apiKey, answers };
    } finally {
      removeDir(folder);
    }
  }

  test('a custom channel message is received and answered with its id', async () => {
    const { apiKey, answers } = await curl("docs/api.md › ## A contact's message from a custom channel");
    expect(answers).toEqual([{ success: true, messageId: expect.stringMatching(/^msg_/) }]);
    const contact = await request(gw, 'GET', '/v1/contacts', { apiKey, query: { q: 'visitor-42' } });
    expect(contact.body.data).toEqual([expect.objectContaining({ firstName: 'Ana' })]);
  });

  test('the Custom Channel Webhook URL is saved, and the settings answer the secret that signs the replies', async () => {
    const { apiKey, answers } = await curl('docs/api.md › ## Reply delivery and webhooks');
    expect(answers).toEqual([
      expect.objectContaining({
        customChannelWebhookUrl: 'https://chat.example.com/leadchat/replies',
        webhookSecret: expect.stringMatching(/^whsec_/),
      }),
    ]);
    const settings = await request(gw, 'GET', '/v1/settings', { apiKey });
    expect(settings.body.customChannelWebhookUrl).toBe('https://chat.example.com/leadchat/replies');
  });

  test('a contact is created with its phone and external ids', async () => {
    const { answers } = await curl('docs/api.md › ## Contacts on every channel');
    expect(answers).toEqual([
      expect.objectContaining({
        phone: '+14155550123',
        firstName: 'Ana',
        externalIds: { livechat: 'visitor-42', crm: '9001' },
      }),
    ]);
  });

  test('an import is queued into the list named by $LIST_ID', async () => {
    const { answers } = await curl('docs/api.md › ## Importing contacts into a list', async (apiKey) => {
      const list = await request(gw, 'POST', '/v1/lists', { apiKey, body: { name: 'Leads' } });
      return { LIST_ID: list.body.id };
    });
    expect(answers).toEqual([
      expect.objectContaining({ id: expect.stringMatching(/^imp_/), status: 'queued', total: 1 }),
    ]);
  });

  test("a list's export is saved under the list's name, its contacts in the columns the guide names", async () => {
    const { answers } = await curl(
      "docs/api.md › ## Exporting a list's contacts",
      async (apiKey) => {
        const list = await request(gw, 'POST', '/v1/lists', { apiKey, body: { name: 'Leads' } });
        const contact = await request(gw, 'POST', '/v1/contacts', {
          apiKey,
          body: { phone: '+14155550123', firstName: 'Ana', externalIds: { livechat: 'visitor-42' } },
        });
        const body = { contactId: contact.body.id };
        expect((await request(gw, 'POST', `/v1/lists/${list.body.id}/contacts`, { apiKey, body })).status).toBe(201);
        return { LIST_ID: list.body.id };
      },
      undefined,
      (_output, folder) => readFileSync(path.join(folder, 'Leads.csv'), 'utf8'),
    );
    const [header, row] = (answers[0] as string).replace(/^\ufeff/, '').split('\r\n');
    expect(header).toBe('Phone,First name,Last name,Email,External ID (livechat),Contact ID,Added to list,Opted out');
    expect(row).toMatch(/^\+14155550123,Ana,,,visitor-42,ct_\w+,[\d-]+T[\d:.]+Z,no$/);
  });

  test("a list and a Live campaign of it are made, and a contact added to the list gets the campaign's opening", async () => {
    const { apiKey, answers } = await curl(
      'docs/api.md › ## Campaigns: what is sent, and when',
      async (apiKey) => {
        const contact = await request(gw, 'POST', '/v1/contacts', {
          apiKey,
          body: { firstName: 'Ana', externalIds: { livechat: 'visitor-42' } },
        });
        return { CONTACT_ID: contact.body.id };
      },
      (answer): Record<string, string> => (String(answer.id).startsWith('lst_') ? { LIST_ID: answer.id } : {}),
    );
    const [list, campaign, added] = answers;
    expect(list).toEqual(expect.objectContaining({ id: expect.stringMatching(/^lst_/), name: 'Website leads' }));
    expect(campaign).toEqual(
      expect.objectContaining({
        listId: list.id,
        channel: 'custom',
        customChannel: 'livechat',
        status: 'live',
        triggerOnNewContacts: true,
      }),
    );
    expect(added).toEqual(expect.objectContaining({ listId: list.id, added: true }));
    // The gateway keeps the admin token it generated in its data dir: the jobs are read with it.
    await untilIdle({ ...gw, adminToken: readFileSync(path.join(gw.dataDir, 'admin-token'), 'utf8').trim() });
    const messages = await request(gw, 'GET', `/v1/contacts/${added.contactId}/messages`, { apiKey });
    expect(messages.body.data).toEqual([
      expect.objectContaining({
        author: 'campaign',
        campaignId: campaign.id,
        channel: 'livechat',
        body: 'Hi Ana, thanks for stopping by!',
      }),
    ]);
  });

  test('the agency of the operator bootstrap grants credits to its sub-account, once for one Idempotency-Key', async () => {
    const admin = {
      authorization: `Bearer ${readFileSync(path.join(gw.dataDir, 'admin-token'), 'utf8').trim()}`,
    };
    const accountOf = async (email: string) =>
      (await request(gw, 'GET', '/admin/v1/accounts', { headers: admin, query: { email } })).body.data[0];
    // The accounts the README's bootstrap makes, made here too when that test did not run first.
    for (const body of [
      { name: 'Acme Agency', email: 'ops@acme.example', type: 'agency' },
      { name: 'Client', email: 'client@example.com', type: 'standard', parentEmail: 'ops@acme.example' },
    ])
      if (!(await accountOf(body.email))) await request(gw, 'POST', '/admin/v1/accounts', { headers: admin, body });
    const agency = await accountOf('ops@acme.example');
    const key = (await request(gw, 'POST', `/admin/v1/accounts/${agency.id}/api-key`, { headers: admin })).body.apiKey;
    const client = await accountOf('client@example.com');
    const before = (await request(gw, 'GET', `/v1/subaccounts/${client.id}/credits`, { apiKey: key })).body.balance;

    const { apiKey: standardKey, answers } = await curl('docs/api.md › ## Credits', async () => ({ KEY: key }));
    expect(answers).toEqual([
      { success: true, sub_account_id: client.id, credits_added: 100, new_balance: before + 100 },
    ]);
    const again = await curl('docs/api.md › ## Credits', async () => ({ KEY: key }));
    expect(again.answers).toEqual(answers);
    const after = await request(gw, 'GET', `/v1/subaccounts/${client.id}/credits`, { apiKey: key });
    expect(after.body.balance).toBe(before + 100);

    const grant = { email: 'nobody@example.com', amount: 1 };
    const unknown = await request(gw, 'POST', '/v1/subaccounts/credits', {
      headers: { 'x-api-key': key },
      body: grant,
    });
    expect({ status: unknown.status, code: unknown.body.error.code }).toEqual({
      status: 404,
      code: 'SUB_ACCOUNT_NOT_FOUND',
    });
    const notAgency = await request(gw, 'POST', '/v1/subaccounts/credits', {
      headers: { 'x-api-key': standardKey },
      body: { ...grant, email: 'client@example.com' },
    });
    expect({ status: notAgency.status, code: notAgency.body.error.code }).toEqual({ status: 403, code: 'NOT_AGENCY' });
  });

  test('the bot is set to an OpenAI-compatible server beside the gateway', async () => {
    const { answers } = await curl('docs/api.md › ## The AI bot');
    expect(answers).toEqual([
      expect.objectContaining({
        provider: 'openai',
        openai: expect.objectContaining({ baseUrl: 'http://localhost:11434/v1', model: 'llama3.1' }),
      }),
    ]);
  });
});

test('every shell block of the documentation is run above or names what proves it', () => {
  const places = [...new Set(BLOCKS.map((block) => block.where))].sort();
  expect(places).toEqual([...RUN_HERE, ...Object.keys(PROVEN_ELSEWHERE)].sort());
});
