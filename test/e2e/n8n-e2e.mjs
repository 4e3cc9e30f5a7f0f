#!/usr/bin/env node
/**
 * End-to-end check of the n8n package in a real n8n (not run by CI): `npm run e2e:n8n`.
 *
 * 1. Fetches Node 24 from the npm registry into .e2e/node24 once (node24.mjs), then installs n8n 2.40.7 under it into
 *    .e2e/n8n once: npm i --ignore-scripts with an override that avoids the registry-missing `cssomnom` (linkedom
 *    0.18.15 wants it, 0.18.14 does not), then builds sqlite3 from source against Node 24's headers (sqlite.mjs).
 * 2. Installs the built package the way `npm i n8n-nodes-leadchat` in ~/.n8n/nodes does: the packed files under
 *    <user folder>/.n8n/nodes/node_modules/n8n-nodes-leadchat, so the nodes load under their published type names
 *    and the example workflows import unchanged. (N8N_CUSTOM_EXTENSIONS would load them as CUSTOM.leadChat.)
 * 3. Starts a gateway, creates accounts and a list, imports two credentials and the example workflows (with the
 *    choices a user makes after import: the list, the chat URL, the team-alert URL, the agency credential).
 * 4. `n8n execute --id` runs a copy of each example whose webhook/trigger is replaced by a Manual Trigger and a Set
 *    node of the same name carrying what the webhook would receive; the results are checked on the gateway.
 * 5. Creates a Live SMS campaign on the funnel's list, publishes the examples and starts n8n: a form post goes through
 *    the funnel, a chat message reaches the inbox, the gateway's reply reaches the activated LeadChat Trigger and is
 *    posted to a local receiver (standing in for the chat system at /api/messages and the team chat at /team-alerts),
 *    and an auto-recharge event grants credits once. Then 10 leads go through the funnel and each gets the campaign's
 *    opening message (3 at once, the rest paced); one writes back asking for a person, and the hand-off alert
 *    workflow posts that lead's details to the team chat.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode24 } from './node24.mjs';
import { buildSqlite3, sqlite3Loads } from './sqlite.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const E2E = path.join(ROOT, '.e2e');
const N8N_DIR = path.join(E2E, 'n8n');
const NODE24_DIR = path.join(E2E, 'node24');
const N8N_VERSION = '2.40.7';
const RUN = path.join(E2E, 'run');
const USER_FOLDER = path.join(RUN, 'user');
const WORK = path.join(RUN, 'workflows');
const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';

const log = (...args) => console.log('[e2e]', ...args);
const failures = [];
function check(condition, what, detail) {
  if (condition) log(`ok   ${what}`);
  else {
    log(
      `FAIL ${what}${detail === undefined ? '' : `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`}`,
    );
    failures.push(what);
  }
}

function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...opts });
  if (res.status !== 0 && !opts.allowFailure) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${res.status}\n${res.stdout}\n${res.stderr}`);
  }
  return res;
}

async function freePort() {
  return await new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what, fn, timeoutMs = 60_000, intervalMs = 500) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

// ---- Node 24 and n8n -------------------------------------------------------------------------------------------

function node24() {
  return ensureNode24(NODE24_DIR, npmCli(), log);
}

function npmCli() {
  const fromEnv = process.env.npm_execpath;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  const which = run('sh', ['-c', 'readlink -f "$(command -v npm)"']).stdout.trim();
  return which;
}

function installN8n(node) {
  const npm = npmCli();
  const marker = path.join(N8N_DIR, 'node_modules', 'n8n', 'package.json');
  if (existsSync(marker) && JSON.parse(readFileSync(marker, 'utf8')).version === N8N_VERSION) {
    log(`n8n ${N8N_VERSION} already installed in ${path.relative(ROOT, N8N_DIR)}`);
  } else {
    log(
      `installing n8n ${N8N_VERSION} under Node ${node.version} into ${path.relative(ROOT, N8N_DIR)} (a few minutes)…`,
    );
    rmSync(N8N_DIR, { recursive: true, force: true });
    mkdirSync(N8N_DIR, { recursive: true });
    // linkedom 0.18.15 depends on cssomnom, which the registry does not have; 0.18.14 (@acemir/cssom) is the
    // previous release of the same line.
    writeFileSync(
      path.join(N8N_DIR, 'package.json'),
      JSON.stringify({ private: true, overrides: { linkedom: '0.18.14' } }, null, 2),
    );
    run(node.bin, [npm, 'install', `n8n@${N8N_VERSION}`, '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: N8N_DIR,
      stdio: 'inherit',
    });
  }
  // Checked on every run, so an install whose sqlite3 build failed is repaired rather than reused.
  if (sqlite3Loads(node, npm, N8N_DIR)) return;
  buildSqlite3(node, npm, N8N_DIR, log);
}

/** The package as `npm i n8n-nodes-leadchat` would put it in n8n's nodes folder: the packed files, no dependencies. */
function installPackage() {
  const nodesModules = path.join(USER_FOLDER, '.n8n', 'nodes', 'node_modules');
  const target = path.join(nodesModules, 'n8n-nodes-leadchat');
  mkdirSync(target, { recursive: true });
  const packDir = path.join(RUN, 'pack');
  mkdirSync(packDir, { recursive: true });
  const packed = JSON.parse(
    run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', packDir], { cwd: ROOT }).stdout,
  );
  const tarball = path.join(packDir, packed[0].filename);
  run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
  writeFileSync(
    path.join(USER_FOLDER, '.n8n', 'nodes', 'package.json'),
    JSON.stringify(
      { name: 'installed-nodes', private: true, dependencies: { 'n8n-nodes-leadchat': packed[0].version } },
      null,
      2,
    ),
  );
  log(`installed ${packed[0].filename} (${packed[0].entryCount} files) into n8n's nodes folder`);
}

// ---- the gateway ------------------------------------------------------------------------------------------------

async function startGateway() {
  const port = await freePort();
  const dataDir = path.join(RUN, 'gateway-data');
  const env = {
    PATH: process.env.PATH ?? '',
    LEADCHAT_PORT: String(port),
    LEADCHAT_HOST: '127.0.0.1',
    LEADCHAT_DATA_DIR: dataDir,
    LEADCHAT_ADMIN_TOKEN: ADMIN_TOKEN,
    LEADCHAT_LOG_LEVEL: 'warn',
    LEADCHAT_WEBHOOK_RETRIES: '1s,2s,5s',
  };
  const child = spawn(process.execPath, [path.join(ROOT, 'gateway/dist/cli/main.js'), 'serve'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  await until('the gateway to listen', async () => out.includes('listening on'), 20_000);
  const ca = readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8');
  const url = `https://127.0.0.1:${port}`;
  return { url, apiBase: `${url}/v1`, ca, child, output: () => out };
}

function api(gw, method, pathname, { apiKey, admin, body, query } = {}) {
  const url = new URL(pathname, gw.url);
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
  const headers = { 'content-type': 'application/json' };
  if (apiKey) headers['x-api-key'] = apiKey;
  if (admin) headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, headers, ca: gw.ca, agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        let json;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = text;
        }
        resolve({ status: res.statusCode, body: json });
      });
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Every item of a paged list endpoint, walking `nextCursor` with small pages so the paging itself is exercised. */
async function allPages(gw, pathname, apiKey, query = {}, limit = 4) {
  const items = [];
  let cursor;
  do {
    const res = await api(gw, 'GET', pathname, {
      apiKey,
      query: { ...query, limit: String(limit), ...(cursor ? { cursor } : {}) },
    });
    if (res.status !== 200) throw new Error(`GET ${pathname}: ${res.status} ${JSON.stringify(res.body)}`);
    items.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return items;
}

async function account(gw, body) {
  const res = await api(gw, 'POST', '/admin/v1/accounts', { admin: true, body });
  if (res.status !== 201) throw new Error(`account ${body.email}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

// ---- a stand-in for the external chat system of the bridge example and the team chat of the hand-off alert -----

async function startChatReceiver() {
  const received = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      try {
        received.push({ path: req.url, body: JSON.parse(text) });
      } catch {
        received.push({ path: req.url, body: text });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  return { url: `${base}/api/messages`, alertsUrl: `${base}/team-alerts`, received, close: () => server.close() };
}

// ---- n8n ----------------------------------------------------------------------------------------------------------

function n8nEnv(port) {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? USER_FOLDER,
    N8N_USER_FOLDER: USER_FOLDER,
    N8N_PORT: String(port),
    N8N_LISTEN_ADDRESS: '127.0.0.1',
    WEBHOOK_URL: `http://127.0.0.1:${port}/`,
    N8N_LOG_LEVEL: 'warn',
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    N8N_SECURE_COOKIE: 'false',
    N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
    DB_SQLITE_POOL_SIZE: '2',
  };
}

/**
 * Runs an n8n CLI command without blocking this process, which serves the chat receiver the workflows post to.
 * Output goes to a file: n8n exits right after printing, which can cut a large document short on a pipe.
 */
let cliRuns = 0;
async function n8nCli(node, env, args) {
  cliRuns += 1;
  const file = path.join(RUN, `n8n-cli-${cliRuns}.out`);
  const fd = openSync(file, 'w');
  const child = spawn(node.bin, [path.join(N8N_DIR, 'node_modules', 'n8n', 'bin', 'n8n'), ...args], {
    env,
    cwd: RUN,
    stdio: ['ignore', fd, fd],
  });
  const [code, signal] = await new Promise((resolve) => child.once('exit', (...exit) => resolve(exit)));
  closeSync(fd);
  const output = readFileSync(file, 'utf8');
  if (code !== 0)
    throw new Error(
      `n8n ${args.join(' ')} ${signal ? `was killed by ${signal}` : `exited ${code}`}; see ${file}:\n${output.slice(-3000)}`,
    );
  return output;
}

/** `n8n execute --id --rawOutput`: the CLI prints the execution through its logger, at info level. */
async function execute(node, env, id) {
  const output = await n8nCli(node, { ...env, N8N_LOG_LEVEL: 'info' }, ['execute', `--id=${id}`, '--rawOutput']);
  // The document is pretty-printed: from a line "{" to the next line "}"; log lines may follow it.
  const lines = output.split('\n');
  const first = lines.indexOf('{');
  const last = lines.indexOf('}', first);
  if (first < 0 || last < 0)
    throw new Error(`no execution JSON in the output of execute --id=${id}:\n${output.slice(0, 2000)}`);
  return JSON.parse(lines.slice(first, last + 1).join('\n'));
}

const outputOf = (execution, nodeName) =>
  execution.data.resultData.runData[nodeName]?.[0]?.data?.main?.[0]?.map((item) => item.json) ?? [];

function example(name) {
  return JSON.parse(readFileSync(path.join(ROOT, 'examples', name), 'utf8'));
}

/** A copy of a workflow that `n8n execute` can start: each listed trigger becomes a Set node of the same name fed by a Manual Trigger. */
function runnable(workflow, id, samples) {
  const copy = structuredClone(workflow);
  copy.id = id;
  copy.name = `${workflow.name} (e2e run)`;
  copy.nodes = copy.nodes.map((node) =>
    node.name in samples
      ? {
          id: node.id,
          name: node.name,
          type: 'n8n-nodes-base.set',
          typeVersion: 3.4,
          position: node.position,
          parameters: { mode: 'raw', jsonOutput: JSON.stringify(samples[node.name]), options: {} },
        }
      : node,
  );
  copy.nodes.push({
    id: `${id}-manual`,
    name: 'Run',
    type: 'n8n-nodes-base.manualTrigger',
    typeVersion: 1,
    position: [-240, 0],
    parameters: {},
  });
  copy.connections.Run = { main: [Object.keys(samples).map((name) => ({ node: name, type: 'main', index: 0 }))] };
  return copy;
}

async function main() {
  const node = node24();
  log(`Node for n8n: ${node.version} (${node.bin})`);
  installN8n(node);

  rmSync(RUN, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  installPackage();

  const gw = await startGateway();
  const receiver = await startChatReceiver();
  let n8n;
  try {
    log(`gateway at ${gw.apiBase}`);
    const owner = await account(gw, { name: 'Acme', email: 'owner@acme.test', type: 'standard' });
    const agency = await account(gw, { name: 'Agency', email: 'agency@agency.test', type: 'agency' });
    const sub = await account(gw, {
      name: 'Client',
      email: 'client@client.test',
      type: 'standard',
      parentEmail: agency.email,
    });
    const list = (await api(gw, 'POST', '/v1/lists', { apiKey: owner.apiKey, body: { name: 'Website form' } })).body;

    const port = await freePort();
    const env = n8nEnv(port);

    // Credentials: the examples refer to "leadchat-credential"; the agency's is picked for the auto-recharge one.
    const credentials = [
      {
        id: 'leadchat-credential',
        name: 'LeadChat account',
        type: 'leadChatApi',
        data: { baseUrl: gw.apiBase, apiKey: owner.apiKey, ignoreSslIssues: true },
      },
      {
        id: 'leadchat-agency',
        name: 'LeadChat agency',
        type: 'leadChatApi',
        data: { baseUrl: gw.apiBase, apiKey: agency.apiKey, ignoreSslIssues: true },
      },
    ];
    writeFileSync(path.join(WORK, 'credentials.json'), JSON.stringify(credentials));
    await n8nCli(node, env, ['import:credentials', `--input=${path.join(WORK, 'credentials.json')}`]);
    log('imported the LeadChat credentials');

    // The examples, with the choices a user makes after importing them.
    const funnel = example('lead-capture-funnel.json');
    funnel.id = 'e2eLeadFunnel0001';
    funnel.nodes.find((n) => n.name === 'Capture Lead').parameters.list = {
      __rl: true,
      mode: 'list',
      value: list.id,
      cachedResultName: list.name,
    };
    const bridge = example('custom-channel-bridge.json');
    bridge.id = 'e2eChatBridge0001';
    bridge.nodes.find((n) => n.name === 'Send Reply to Chat').parameters.url = receiver.url;
    const recharge = example('auto-recharge-handler.json');
    recharge.id = 'e2eAutoRecharge01';
    for (const n of recharge.nodes)
      if (n.credentials?.leadChatApi) n.credentials.leadChatApi = { id: 'leadchat-agency', name: 'LeadChat agency' };
    const handoffAlert = example('handoff-alert.json');
    handoffAlert.id = 'e2eHandoffAlert01';
    handoffAlert.nodes.find((n) => n.name === 'Alert the Team').parameters.url = receiver.alertsUrl;

    const runs = {
      funnel: runnable(funnel, 'e2eRunFunnel00001', {
        'Form Submitted': {
          headers: {},
          params: {},
          query: {},
          body: { phone: '+1 (415) 555-0170', first_name: 'Cli', email: 'cli@example.com' },
        },
      }),
      bridge: runnable(bridge, 'e2eRunBridge00001', {
        'Chat Message In': {
          headers: {},
          params: {},
          query: {},
          body: { id: 'chat-cli-1', userId: 'visitor-cli', text: 'Hello from the CLI run', name: 'Cleo' },
        },
        'On Reply': {
          event: 'reply',
          contactId: 'ct_x',
          messageId: 'msg_x',
          userId: 'usr_x',
          body: 'Reply text',
          toId: 'visitor-cli',
          channel: 'website-chat',
        },
      }),
      recharge: runnable(recharge, 'e2eRunRecharge001', {
        'On Auto-Recharge': {
          event: 'auto_recharge',
          type: 'auto_recharge',
          idempotency_key: 'e2e-cli-key-1',
          sub_account_id: sub.id,
          sub_account_email: sub.email,
          balance: 0,
          threshold: 10,
          amount: 7,
        },
      }),
    };
    for (const workflow of [funnel, bridge, recharge, handoffAlert, ...Object.values(runs)]) {
      const file = path.join(WORK, `${workflow.id}.json`);
      writeFileSync(file, JSON.stringify(workflow, null, 2));
      await n8nCli(node, env, ['import:workflow', `--input=${file}`]);
    }
    log('imported the four examples and the runnable copies of three');

    // ---- n8n execute --id ----------------------------------------------------------------------------------------
    const funnelRun = await execute(node, env, runs.funnel.id);
    const lead = outputOf(funnelRun, 'Capture Lead')[0];
    check(
      lead?.phone === '+14155550170' && lead?.created === true && lead?.addedToList === true,
      'execute: lead-capture-funnel captures the lead',
      lead,
    );
    const members = (await api(gw, 'GET', `/v1/lists/${list.id}/contacts`, { apiKey: owner.apiKey })).body.data;
    check(
      members.some((m) => m.id === lead?.id),
      'execute: the lead is on the campaign list',
    );

    const bridgeRun = await execute(node, env, runs.bridge.id);
    const inbox = outputOf(bridgeRun, 'Post to Inbox')[0];
    check(
      inbox?.success === true && typeof inbox?.messageId === 'string',
      'execute: custom-channel-bridge posts the chat message to the inbox',
      inbox,
    );
    const stored = inbox?.messageId
      ? (await api(gw, 'GET', `/v1/messages/${inbox.messageId}`, { apiKey: owner.apiKey })).body
      : undefined;
    check(
      stored?.body === 'Hello from the CLI run' && stored?.channel === 'website-chat',
      'execute: the gateway stored it with its channel',
      stored,
    );
    check(
      receiver.received.some((r) => r.body.userId === 'visitor-cli' && r.body.text === 'Reply text'),
      'execute: the reply branch posts to the chat system',
      receiver.received,
    );

    const rechargeRun = await execute(node, env, runs.recharge.id);
    const granted = outputOf(rechargeRun, 'Grant Credits')[0];
    check(
      granted?.credits_added === 7 && granted?.new_balance === 7,
      'execute: auto-recharge-handler grants the credits',
      granted,
    );
    const again = await execute(node, env, runs.recharge.id);
    check(
      outputOf(again, 'Grant Credits')[0]?.new_balance === 7,
      'execute: running it again with the same idempotency_key grants nothing more',
    );

    // ---- activated workflows --------------------------------------------------------------------------------------
    // The campaign the funnel feeds: every contact added to its list from now on gets the opening message by SMS.
    const campaignRes = await api(gw, 'POST', '/v1/campaigns', {
      apiKey: owner.apiKey,
      body: {
        name: 'Website leads',
        channel: 'sms',
        listId: list.id,
        openingMessage: 'Hi {{first_name|there}}, thanks for your interest in Acme! Any question about our plans?',
        triggerOnNewContacts: true,
        status: 'live',
        sendRate: '60/m',
      },
    });
    check(
      campaignRes.status === 201 && campaignRes.body?.status === 'live',
      'campaign: a Live SMS campaign on the funnel list',
      campaignRes,
    );
    const campaign = campaignRes.body;

    const published = [funnel, bridge, recharge, handoffAlert];
    for (const workflow of published) await n8nCli(node, env, ['publish:workflow', `--id=${workflow.id}`]);
    log(`published the ${published.length} examples; starting n8n`);
    n8n = spawn(node.bin, [path.join(N8N_DIR, 'node_modules', 'n8n', 'bin', 'n8n'), 'start'], {
      env,
      cwd: RUN,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let n8nOut = '';
    n8n.stdout.on('data', (c) => (n8nOut += c));
    n8n.stderr.on('data', (c) => (n8nOut += c));
    const n8nBase = `http://127.0.0.1:${port}`;
    await until('n8n to answer', async () => (await fetch(`${n8nBase}/healthz`)).ok, 120_000).catch((error) => {
      throw new Error(`${error.message}\n${n8nOut}`);
    });

    // The owner's account has two triggers: the bridge's Reply and the alert's Hand-Off, one subscription each.
    const ownerSubs = await until('the reply and hand-off triggers to subscribe', async () => {
      const subs = (await api(gw, 'GET', '/v1/webhooks', { apiKey: owner.apiKey })).body.data;
      return subs.length >= 2 ? subs : undefined;
    }).catch((error) => {
      throw new Error(`${error.message}\n${n8nOut}`);
    });
    const subscribed = (event) =>
      ownerSubs.filter((s) => s.url.startsWith(`${n8nBase}/webhook/`) && s.events.join() === event);
    check(
      ownerSubs.length === 2 && subscribed('reply').length === 1,
      'activation: the Reply trigger subscribed its production URL',
      ownerSubs,
    );
    check(
      subscribed('handoff').length === 1 && subscribed('handoff')[0].url !== subscribed('reply')[0]?.url,
      'activation: the Hand-Off trigger subscribed its own production URL',
      ownerSubs,
    );
    const agencySubs = await until('the auto-recharge trigger to subscribe', async () => {
      const subs = (await api(gw, 'GET', '/v1/webhooks', { apiKey: agency.apiKey })).body.data;
      return subs.length ? subs : undefined;
    });
    check(
      agencySubs.length === 1 && agencySubs[0].events.join() === 'auto_recharge',
      'activation: the Auto-Recharge trigger subscribed',
      agencySubs,
    );

    // The form funnel, through the real webhook.
    const form = await until('the form webhook', async () => {
      const res = await fetch(`${n8nBase}/webhook/leadchat-lead-form`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ phone: '0044 20 7946 0101', first_name: 'Webhook', email: 'webhook@example.com' }),
      });
      return res.status === 404 ? undefined : { status: res.status, body: await res.json().catch(() => undefined) };
    });
    check(
      form.status === 200 && form.body?.phone === '+442079460101' && form.body?.addedToList === true,
      'webhook: the form post is captured and answered with the contact',
      form,
    );

    // A chat message in through the bridge's webhook.
    const chatIn = await fetch(`${n8nBase}/webhook/leadchat-chat-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'chat-live-1',
        userId: 'visitor-live',
        text: 'Do you deliver on Sundays?',
        name: 'Liv',
      }),
    });
    check(chatIn.status === 200, 'webhook: the chat message is accepted', chatIn.status);
    // An agent answers the visitor: the contact is the one the chat message created (same fromId).
    await sleep(2000);
    const contact = (
      await api(gw, 'POST', '/v1/send_custom_channel_message', {
        apiKey: owner.apiKey,
        body: {
          customData: { fromId: 'visitor-live', customChannel: 'website-chat', body: 'Yes, every Sunday until 6 pm.' },
        },
      })
    ).body;
    const thread = await until('the chat message in the inbox', async () => {
      const messages = (await api(gw, 'GET', `/v1/contacts/${contact.contactId}/messages`, { apiKey: owner.apiKey }))
        .body;
      const list = Array.isArray(messages) ? messages : messages?.data;
      return list?.some((m) => m.body === 'Do you deliver on Sundays?') ? list : undefined;
    }).catch(() => undefined);
    check(Boolean(thread), 'webhook: the chat message reached the inbox of the same contact');
    // An agent's reply to that contact: the gateway delivers it to the activated trigger, which posts it to the chat.
    const delivered = await until('the reply to reach the chat system', async () =>
      receiver.received.find(
        (r) => r.body.userId === 'visitor-live' && r.body.text === 'Yes, every Sunday until 6 pm.',
      ),
    ).catch(() => undefined);
    check(
      Boolean(delivered),
      'trigger: the gateway reply ran the workflow and reached the chat system',
      receiver.received,
    );
    const message = (await api(gw, 'GET', `/v1/messages/${contact.messageId}`, { apiKey: owner.apiKey })).body;
    check(
      message?.status === 'sent' || message?.deliveries?.some((d) => d.status === 'sent'),
      'trigger: the gateway recorded the delivery as sent',
      message,
    );

    // Auto-recharge: the event reaches the agency's trigger, which grants once with the event's key.
    const before = (await api(gw, 'GET', '/v1/credits', { apiKey: sub.apiKey })).body.balance;
    await api(gw, 'PUT', '/v1/subaccounts/auto-recharge', {
      apiKey: agency.apiKey,
      body: { email: sub.email, threshold: before + 10, amount: 25 },
    });
    const after = await until('the auto-recharge grant', async () => {
      const balance = (await api(gw, 'GET', '/v1/credits', { apiKey: sub.apiKey })).body.balance;
      return balance > before ? balance : undefined;
    }).catch(() => undefined);
    check(after === before + 25, 'trigger: the auto-recharge event granted the amount', { before, after });
    await sleep(3000);
    const settled = (await api(gw, 'GET', '/v1/credits', { apiKey: sub.apiKey })).body.balance;
    check(settled === before + 25, 'trigger: and only once', { before, settled });

    // The funnel at scale: 10 leads through the form webhook, each on the list and greeted by the Live campaign.
    const names = ['Ana', 'Ben', 'Chloé', 'Dev', 'Eli', 'Fatou', 'Gus', 'Hana', 'Ivo', 'Jun'];
    const leads = [];
    for (const [i, firstName] of names.entries()) {
      const res = await fetch(`${n8nBase}/webhook/leadchat-lead-form`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          phone: `+1 (415) 555-02${String(10 + i)}`,
          first_name: firstName,
          email: `lead${i + 1}@example.com`,
        }),
      });
      leads.push({ firstName, status: res.status, body: await res.json().catch(() => undefined) });
    }
    const captured = leads.filter(
      (l) => l.status === 200 && l.body?.addedToList === true && typeof l.body?.id === 'string',
    );
    check(
      captured.length === 10,
      'funnel: the 10 form posts are captured and added to the list',
      leads.filter((l) => !captured.includes(l)),
    );
    const onList = await allPages(gw, `/v1/lists/${list.id}/contacts`, owner.apiKey);
    check(
      captured.every((l) => onList.some((m) => m.id === l.body.id)),
      'funnel: all 10 leads are on the campaign list',
      { onList: onList.length },
    );

    // 3 go at once and the rest at 60/m: about 10 s; polled gently, as the API key's rate limit counts these too.
    const leadIds = new Set(captured.map((l) => l.body.id));
    const greeted = await until(
      'the opening messages of the 10 leads',
      async () => {
        const conversations = await allPages(gw, '/v1/conversations', owner.apiKey, { campaignId: campaign.id });
        const ours = conversations.filter((c) => leadIds.has(c.contactId) && c.opening?.status === 'sent');
        return ours.length === leadIds.size ? ours : undefined;
      },
      120_000,
      3000,
    ).catch(() => undefined);
    check(Boolean(greeted), 'campaign: each of the 10 leads got the opening message (opening.status sent)');
    const personalized = (greeted ?? []).filter(
      (c) =>
        c.channel === 'sms' &&
        c.lastMessage?.body ===
          `Hi ${c.contact?.firstName}, thanks for your interest in Acme! Any question about our plans?`,
    );
    check(
      greeted && personalized.length === 10,
      "campaign: by SMS, with each lead's first name",
      greeted?.map((c) => c.lastMessage),
    );

    // One lead answers asking for a person: the hand-off alert workflow tells the team, with that lead's details.
    const asker = captured[3];
    const askText = 'Thanks! Can I talk to a real person about pricing?';
    const incoming = await api(gw, 'POST', '/v1/channels/sms/incoming', {
      apiKey: owner.apiKey,
      body: { phone: asker?.body.phone, body: askText },
    });
    check(
      incoming.status === 200 && incoming.body?.contactId === asker?.body.id,
      "hand-off: the lead's SMS answer is received on its contact",
      incoming,
    );
    const alert = await until(
      'the hand-off alert',
      async () => receiver.received.find((r) => r.path === '/team-alerts' && r.body?.contactId === asker?.body.id),
      60_000,
      1000,
    ).catch(() => undefined);
    check(
      alert?.body?.reason === 'contact_asked' &&
        alert.body.body === askText &&
        alert.body.firstName === asker.firstName &&
        alert.body.phone === asker.body.phone &&
        alert.body.channel === 'sms' &&
        alert.body.conversationId === incoming.body?.conversationId &&
        alert.body.campaignId === campaign.id &&
        typeof alert.body.text === 'string' &&
        alert.body.text.includes(asker.firstName) &&
        alert.body.text.includes(askText),
      "hand-off: the alert workflow posted the lead's name, phone, channel, message and reason to the team chat",
      alert ?? receiver.received.filter((r) => r.path === '/team-alerts'),
    );
    if (alert) log(`team alert: ${alert.body.text}`);
    const handedOff = (
      await api(gw, 'GET', `/v1/conversations/${incoming.body?.conversationId}`, { apiKey: owner.apiKey })
    ).body;
    check(
      handedOff?.status === 'handed_off' && handedOff?.bot?.active === false,
      'hand-off: the conversation is handed_off and the bot is silent',
      handedOff,
    );
    await sleep(2000);
    check(
      receiver.received.filter((r) => r.path === '/team-alerts').length === 1,
      'hand-off: one alert, for that lead only',
      receiver.received.filter((r) => r.path === '/team-alerts'),
    );
  } finally {
    if (n8n && n8n.exitCode === null) {
      n8n.kill('SIGTERM');
      await new Promise((resolve) => n8n.once('exit', resolve));
    }
    receiver.close();
    gw.child.kill('SIGTERM');
  }

  if (failures.length) {
    log(`${failures.length} check(s) failed`);
    process.exit(1);
  }
  log('all checks passed');
}

main().catch((error) => {
  console.error('[e2e] error:', error.message ?? error);
  process.exit(1);
});
