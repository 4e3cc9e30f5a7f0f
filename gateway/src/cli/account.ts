import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import { text } from 'node:stream/consumers';
import { read } from 'read';
import { adminTokenFile } from '../admin-token.js';
import { loadConfig, type Config } from '../config.js';
import { dataDirHolder } from '../lock.js';
import { tlsOptionsOf, trustOf, type Trust } from './trust.js';

/**
 * `leadchat-gateway account …` and `member …`: the admin API from the command line, printing its JSON. The gateway address
 * comes from LEADCHAT_URL (default https://localhost:<port>), the token from LEADCHAT_ADMIN_TOKEN or the data
 * dir; the gateway's own certificate is trusted (see trust.ts).
 */
export async function accountCommand(
  sub: string | undefined,
  opts: PasswordOptions & { name?: string; email?: string; agency?: boolean; parent?: string; yes?: boolean },
): Promise<number> {
  if (sub === 'delete') return deleteCommand(opts);
  const password = await passwordOf(opts);
  const call = await adminCaller();

  if (sub === 'create') {
    if (!opts.name || !opts.email) throw new Error('account create needs --name and --email');
    return print(
      await call('POST', '/admin/v1/accounts', {
        name: opts.name,
        email: opts.email,
        type: opts.agency ? 'agency' : 'standard',
        ...(opts.parent ? { parentEmail: opts.parent } : {}),
        ...(password ? { password } : {}),
      }),
    );
  }
  if (sub === 'list') {
    const query = opts.email ? `?email=${encodeURIComponent(opts.email)}` : '';
    return print(await call('GET', `/admin/v1/accounts${query}`));
  }
  if (sub === 'rotate-key') {
    if (!opts.email) throw new Error('account rotate-key needs --email');
    const found = await call('GET', `/admin/v1/accounts?email=${encodeURIComponent(opts.email)}`);
    const account = (found.body as { data?: Array<{ id: string }> }).data?.[0];
    if (found.status !== 200) return print(found);
    if (!account) throw new Error(`No account with email ${opts.email}`);
    return print(await call('POST', `/admin/v1/accounts/${account.id}/api-key`));
  }
  if (sub === 'password') {
    if (!opts.email || password === undefined)
      throw new Error('account password needs --email and --password-stdin (or --password)');
    const found = await call('GET', `/admin/v1/accounts?email=${encodeURIComponent(opts.email)}`);
    const account = (found.body as { data?: Array<{ id: string }> }).data?.[0];
    if (found.status !== 200) return print(found);
    if (!account) throw new Error(`No account with email ${opts.email}`);
    return print(await call('PUT', `/admin/v1/accounts/${account.id}/password`, { password }));
  }
  throw new Error('usage: account create|list|rotate-key|password|delete (see leadchat-gateway help)');
}

/** How often `account delete` asks whether the account's data is gone yet. */
const DELETION_POLL_MS = 500;

/**
 * `leadchat-gateway account delete --email EMAIL`: the account and all its data go for good, once the operator has
 * typed its email again (or given --yes, for scripts). Waits until the gateway has removed everything, then prints
 * the deletion: what was removed, collection by collection.
 */
async function deleteCommand(opts: { email?: string; yes?: boolean }): Promise<number> {
  if (!opts.email) throw new Error('account delete needs --email');
  const call = await adminCaller();
  const found = await call('GET', `/admin/v1/accounts?email=${encodeURIComponent(opts.email)}`);
  if (found.status !== 200) return print(found);
  const account = (found.body as { data?: Array<{ id: string; email: string; name: string }> }).data?.[0];
  if (!account) throw new Error(`No account with email ${opts.email}`);
  if (!opts.yes) {
    const prompt = `This deletes the account "${account.name}" (${account.email}, ${account.id}) and all its data for good. Type its email to confirm: `;
    const typed = process.stdin.isTTY
      ? await read({ prompt, output: process.stderr })
      : (process.stderr.write(prompt), (await text(process.stdin)).split(/\r?\n/)[0]!);
    if (typed.trim().toLowerCase() !== account.email.toLowerCase())
      throw new Error("the email typed is not the account's: nothing was deleted (--yes skips the question)");
  }
  let answer = await call('DELETE', `/admin/v1/accounts/${account.id}`);
  while (answer.status < 300 && (answer.body as { status?: string }).status === 'deleting') {
    await new Promise((resolve) => setTimeout(resolve, DELETION_POLL_MS));
    answer = await call('GET', `/admin/v1/accounts/${account.id}/deletion`);
  }
  return print(answer);
}

interface PasswordOptions {
  password?: string;
  passwordStdin?: boolean;
}

/**
 * The console password of `account create` and `account password`. `--password-stdin` reads it from standard input:
 * typed at a terminal without being shown, or piped from a secret store or a file, read to its end less one line
 * break. A password in the arguments (`--password`) is seen by the machine's other users in its process list and kept
 * in the shell's history: it is taken, with a warning.
 */
async function passwordOf(opts: PasswordOptions): Promise<string | undefined> {
  if (opts.passwordStdin && opts.password !== undefined)
    throw new Error('give the password with --password-stdin or --password, not both');
  if (!opts.passwordStdin) {
    if (opts.password !== undefined)
      process.stderr.write(
        "leadchat-gateway: warning: a password on the command line is seen in the machine's process list and kept in " +
          'the shell history; --password-stdin reads it from standard input instead\n',
      );
    return opts.password;
  }
  const typed = process.stdin.isTTY
    ? await read({ prompt: 'Password: ', silent: true, replace: '', output: process.stderr })
    : await text(process.stdin);
  const password = typed.replace(/\r?\n$/, '');
  if (!password) throw new Error('--password-stdin read no password from standard input');
  return password;
}

/** `leadchat-gateway member add …`: invites a member to an account's team and prints the link to pass on. */
export async function memberCommand(
  sub: string | undefined,
  opts: { account?: string; email?: string; name?: string; role?: string },
): Promise<number> {
  if (sub !== 'add')
    throw new Error('usage: member add --account ACCOUNT_EMAIL --email EMAIL --role admin|agent [--name NAME]');
  if (!opts.account || !opts.email || !opts.role) throw new Error('member add needs --account, --email and --role');
  const call = await adminCaller();
  const found = await call('GET', `/admin/v1/accounts?email=${encodeURIComponent(opts.account)}`);
  if (found.status !== 200) return print(found);
  const account = (found.body as { data?: Array<{ id: string }> }).data?.[0];
  if (!account) throw new Error(`No account with email ${opts.account}`);
  return print(
    await call('POST', `/admin/v1/accounts/${account.id}/members`, {
      email: opts.email,
      name: opts.name ?? opts.email.split('@')[0],
      role: opts.role,
    }),
  );
}

/** Calls the admin API of the gateway LEADCHAT_URL names, with the operator's token. */
async function adminCaller() {
  const config = loadConfig();
  const { url, token, trust } = await adminConnection(config);
  return (method: string, pathname: string, body?: unknown) =>
    adminRequest(new URL(pathname, url), token, trust, method, body).catch(async (err: Error) => {
      throw new Error(`${err.message}; ${await whatToDo(config)}`);
    });
}

/**
 * What an operator does when the gateway was not reached: the usual cause is a command run without the gateway's
 * settings (another terminal, no LEADCHAT_PORT), or before the gateway was started.
 */
async function whatToDo(config: Config): Promise<string> {
  const holder = await dataDirHolder(config.dataDir);
  if (holder)
    return `a gateway (${holder}) runs on the data dir ${config.dataDir}: run this command with the settings it runs with (LEADCHAT_HOST and LEADCHAT_PORT, or LEADCHAT_URL)`;
  return `no gateway runs on the data dir ${config.dataDir} (LEADCHAT_DATA_DIR): start it (npm start in the repository, leadchat-gateway serve where it is installed) and run this command again, or set LEADCHAT_URL to the address of one that runs`;
}

/** Where the admin API is, the operator's token, and what to trust of its certificate. */
export async function adminConnection(config: Config): Promise<{ url: string; token: string; trust: Trust }> {
  const token = config.adminToken ?? (await readFile(adminTokenFile(config), 'utf8').catch(() => '')).trim();
  if (!token)
    throw new Error(
      `No admin token: set LEADCHAT_ADMIN_TOKEN or start the gateway once to create ${adminTokenFile(config)}`,
    );
  return { url: config.url, token, trust: await trustOf(config) };
}

/** An answer of the admin API printed as the commands print it: its JSON, and exit 1 for a refusal. */
export function print(res: { status: number; body: unknown }): number {
  process.stdout.write(`${JSON.stringify(res.body, null, 2)}\n`);
  return res.status < 300 ? 0 : 1;
}

async function adminRequest(
  url: URL,
  token: string,
  trust: Trust,
  method: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  return readAnswer(await adminResponse(url, token, trust, method, body));
}

/** The admin API's response to a request, unread (a backup streams it to a file). */
export function adminResponse(
  url: URL,
  token: string,
  trust: Trust,
  method: string,
  body?: unknown,
): Promise<IncomingMessage> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method,
        ...tlsOptionsOf(trust),
        headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      resolve,
    );
    req.on('error', (err) => reject(new Error(`Cannot reach the gateway at ${url.origin}: ${err.message}`)));
    req.end(payload);
  });
}

/** A response's status and JSON body (a body that is not JSON as `{ error: text }`). */
export async function readAnswer(res: IncomingMessage): Promise<{ status: number; body: unknown }> {
  let text = '';
  for await (const chunk of res.setEncoding('utf8')) text += chunk;
  try {
    return { status: res.statusCode ?? 0, body: JSON.parse(text) };
  } catch {
    return { status: res.statusCode ?? 0, body: { error: text } };
  }
}
