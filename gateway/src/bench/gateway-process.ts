/** The built gateway (and the bare baseline) as child processes of the ingest benchmark. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { client } from './http-load.js';

export const GATEWAY_MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'main.js');
export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

/** Starts a child and resolves once its output contains `ready`; one that does not start in time is killed. */
export function startChild(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: string,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  // Always drained: a child blocked on a full pipe would look slow.
  child.stdout!.on('data', (c) => (out = (out + c).slice(-20_000)));
  child.stderr!.on('data', (c) => (out = (out + c).slice(-20_000)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')} did not start:\n${out}`));
    }, 30_000);
    const check = () => {
      if (!out.includes(ready)) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      resolve({ child, output: () => out });
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code}:\n${out}`));
    });
  });
}

export function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * A gateway's environment: the caller's LEADCHAT_* settings reach it, the log level defaults to warn so that
 * per-request log lines are not part of the figures, and the rate limit is out of the way.
 */
export function gatewayEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LEADCHAT_LOG_LEVEL: process.env.LEADCHAT_LOG_LEVEL ?? 'warn',
    LEADCHAT_HOST: '127.0.0.1',
    LEADCHAT_ADMIN_TOKEN: ADMIN_TOKEN,
    LEADCHAT_RATE_LIMIT_PER_MINUTE: '1000000',
    ...settings,
  };
}

/** `leadchat-gateway serve` (this build's, or the `main` of another), resolved once it listens. */
export async function startGateway(
  env: NodeJS.ProcessEnv,
  main = GATEWAY_MAIN,
  node: string[] = [],
): Promise<ChildProcess> {
  return (await startChild([...node, main, 'serve'], env, 'listening on')).child;
}

/** A new account through the admin API; its API key. */
export async function createAccount(url: string, ca: string, email = 'bench@example.com'): Promise<string> {
  const admin = client({ url, ca }, 1);
  try {
    const account = await admin.post(
      '/admin/v1/accounts',
      { name: 'Bench', email },
      { authorization: `Bearer ${ADMIN_TOKEN}` },
    );
    if (account.status !== 201) throw new Error(`account creation failed: ${account.status} ${account.text}`);
    return (JSON.parse(account.text) as { apiKey: string }).apiKey;
  } finally {
    admin.close();
  }
}
