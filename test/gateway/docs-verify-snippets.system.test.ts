import { execFileSync, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeDir } from '../helpers/gateway';
import { api, createAccount, Receiver, settledMessage, unique, useGateway, type Received } from './api-support';

/**
 * The API guide's code that verifies a reply's signature, run as printed (Node.js and Python) against deliveries the
 * gateway made: a developer who copies it takes every genuine reply, whatever its text, and refuses a forged one.
 */

const ROOT = path.resolve(__dirname, '../..');
const GUIDE = readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');

/** The guide's block of `language` under "Verifying a delivery". */
function snippet(language: string): string {
  const section = GUIDE.slice(GUIDE.indexOf('**Verifying a delivery.**'));
  const block = new RegExp('^```' + language + '\\n([\\s\\S]*?)^```', 'm').exec(section);
  if (!block) throw new Error(`docs/api.md has no ${language} block under "Verifying a delivery"`);
  return block[1]!;
}

const ctx = useGateway({ LEADCHAT_WEBHOOK_RETRIES: '100ms' });
const dir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-verify-'));
let hook: Receiver;
afterAll(async () => {
  await hook?.close();
  removeDir(dir);
});

interface Case {
  secret: string;
  headers: Record<string, string>;
  /** The body's bytes, as base64. */
  body: string;
}
const asCase = (secret: string, received: Received, raw = received.raw): Case => ({
  secret,
  headers: Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(received.headers[h])]),
  ),
  body: Buffer.from(raw, 'utf8').toString('base64'),
});

/** The delivery `received` as its secret would sign it at `timestamp` (seconds). */
function signedAt(secret: string, received: Received, timestamp: number): Case {
  const id = String(received.headers['webhook-id']);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${received.raw}`).digest('base64');
  return {
    ...asCase(secret, received),
    headers: { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` },
  };
}

/** Each case's verdict by the guide's Node.js function. */
function byNode(cases: Case[]): boolean[] {
  writeFileSync(path.join(dir, 'verify.mjs'), snippet('js'));
  const harness = `import { verifyWebhook } from './verify.mjs';
    const cases = JSON.parse(process.argv[2]);
    console.log(JSON.stringify(cases.map((c) => verifyWebhook(c.secret, c.headers, Buffer.from(c.body, 'base64')))));`;
  writeFileSync(path.join(dir, 'harness.mjs'), harness);
  return JSON.parse(
    execFileSync(process.execPath, [path.join(dir, 'harness.mjs'), JSON.stringify(cases)], { encoding: 'utf8' }),
  );
}

/** Each case's verdict by the guide's Python function. */
function byPython(cases: Case[]): boolean[] {
  const harness = `${snippet('python')}
import base64, json, sys
cases = json.loads(sys.argv[1])
print(json.dumps([verify_webhook(c["secret"], c["headers"], base64.b64decode(c["body"])) for c in cases]))
`;
  const run = spawnSync('python3', ['-c', harness, JSON.stringify(cases)], { encoding: 'utf8' });
  if (run.error)
    throw new Error(
      `the guide's Python code runs in python3, which is missing: apt-get install -y python3 (${run.error.message})`,
    );
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout);
}

test("the guide's verification takes genuine replies in any script, and refuses forged, re-encoded and unsigned ones", async () => {
  hook = await Receiver.start();
  const account = await createAccount(ctx.gw);
  expect((await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } })).status).toBe(
    200,
  );
  const oldSecret: string = (await api(ctx.gw, account, 'GET', 'settings')).body.webhookSecret;
  const text = 'Olá Zoë 👋 — “¿café?” 日本語 </script> \u2028 e\u0301';
  const fromId = unique('visitor');
  const send = async () => {
    const res = await api(ctx.gw, account, 'POST', 'send_custom_channel_message', {
      body: { customData: { customChannel: 'livechat', fromId, body: text } },
    });
    expect((await settledMessage(ctx.gw, account, res.body.messageId)).status).toBe('sent');
    return hook.requests.at(-1)!;
  };
  const first = await send();
  expect(first.body.body).toBe(text);
  // A rotation: the next reply carries two signatures, and either secret verifies it.
  const newSecret: string = (await api(ctx.gw, account, 'POST', 'settings/webhook-secret')).body.webhookSecret;
  const second = await send();
  expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(2);

  const other = (await api(ctx.gw, await createAccount(ctx.gw), 'GET', 'settings')).body.webhookSecret;
  const cases: Array<[string, Case, boolean]> = [
    ['genuine', asCase(oldSecret, first), true],
    ['after a rotation, with the new secret', asCase(newSecret, second), true],
    ['after a rotation, with the replaced secret', asCase(oldSecret, second), true],
    ['another secret', asCase(other, first), false],
    ['a changed text', asCase(oldSecret, first, first.raw.replace('café', 'cafe')), false],
    // As Python's json.dumps writes the parsed body again: the same JSON value, other bytes.
    [
      're-encoded',
      asCase(
        oldSecret,
        first,
        first.raw.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
      ),
      false,
    ],
    ['unsigned', { ...asCase(oldSecret, first), headers: {} }, false],
    ['signed an hour ago, played again', signedAt(oldSecret, first, Math.floor(Date.now() / 1000) - 3600), false],
    ['signed now, by the same means', signedAt(oldSecret, first, Math.floor(Date.now() / 1000)), true],
  ];
  const verdicts = Object.fromEntries(cases.map(([name, , expected]) => [name, expected]));
  const named = (results: boolean[]) => Object.fromEntries(cases.map(([name], i) => [name, results[i]]));
  expect(named(byNode(cases.map(([, c]) => c)))).toEqual(verdicts);
  expect(named(byPython(cases.map(([, c]) => c)))).toEqual(verdicts);
});
