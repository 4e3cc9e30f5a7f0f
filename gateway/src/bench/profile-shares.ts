/**
 * Folds a V8 CPU profile (`node --cpu-prof`, e.g. the gateway under the hot-path bench with LEADCHAT_BENCH_CPU_PROF)
 * into the steps of the hot path, so that a profile before a change and one after it print the same table:
 * `node dist/bench/profile-shares.js <file.cpuprofile> [requests]` prints each step's share of the busy samples
 * (idle left out) and, given how many requests the profile covers, its CPU per request.
 *
 * A sample belongs to the innermost frame of its stack that a step claims (JSON.parse under body-parser is parsing;
 * the store's encoding under the engine is the store), except that anything under the job runner is the delivery job's
 * (its claim, its store writes and its HTTP call alike). A continuation resumed after an await starts a stack of its
 * own: it is claimed by the frames it has.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The steps, in the order of a request's life; each claims frames by file (and a few by function). */
const STEPS: Array<{ step: string; claims: (url: string, fn: string) => boolean }> = [
  {
    step: 'TLS and socket',
    claims: (u) => /^node:(_tls|tls|net|internal\/(tls|stream_base_commons|streams|net))/.test(u),
  },
  {
    step: 'parsing (HTTP, JSON body)',
    claims: (u) =>
      /^node:(_http_server|_http_common|_http_incoming|internal\/http)/.test(u) ||
      /node_modules\/(body-parser|raw-body|iconv-lite|content-type|type-is|media-typer|bytes)\//.test(u) ||
      /\/dist\/(http\/middleware\/json-body|domain\/storable-text)\.js/.test(u),
  },
  {
    step: 'Express routing',
    claims: (u) =>
      /node_modules\/(express|router|path-to-regexp|finalhandler|parseurl|qs)\//.test(u) &&
      !u.includes('express/lib/response'),
  },
  {
    step: 'authentication',
    claims: (u) =>
      /\/dist\/(http\/middleware\/(auth|auth-failures|session)|domain\/(accounts|secrets|members))\.js/.test(u),
  },
  {
    step: 'rate limit',
    claims: (u) =>
      /node_modules\/express-rate-limit\//.test(u) ||
      /\/dist\/(http\/middleware\/rate-limit|store\/lowdb\/hits)\.js/.test(u),
  },
  {
    step: 'validation',
    claims: (u) => /node_modules\/zod\//.test(u) || /\/dist\/http\/(route|schemas|issues)\.js/.test(u),
  },
  {
    step: 'access log',
    claims: (u) =>
      /node_modules\/(pino|sonic-boom|thread-stream|fast-redact|on-finished)/.test(u) ||
      /\/dist\/(log|http\/middleware\/request-log)\.js/.test(u),
  },
  {
    step: 'metrics',
    claims: (u) => /node_modules\/prom-client\//.test(u) || /\/dist\/(metrics|http\/request-metrics)\.js/.test(u),
  },
  {
    step: 'store write and group commit',
    claims: (u) =>
      /\/dist\/store\//.test(u) || /node_modules\/(lowdb|steno)\//.test(u) || /^node:(fs|internal\/fs)/.test(u),
  },
  {
    step: 'engine',
    claims: (u) =>
      /\/dist\/(engine|domain|providers|bot)\//.test(u) ||
      /node_modules\/(nanoid|libphonenumber-js|minisearch)\//.test(u),
  },
  {
    step: 'answer',
    claims: (u) => /node_modules\/express\/lib\/response/.test(u) || /^node:_http_outgoing/.test(u),
  },
];
const DELIVERY = 'delivery job';
const IN_JOBS = (u: string) =>
  /\/dist\/(jobs|outbound)\//.test(u) || /node_modules\/got\//.test(u) || /^node:_http_client/.test(u);
const ORDER = [...STEPS.map((s) => s.step), DELIVERY, 'garbage collection', 'other JavaScript', 'native, unattributed'];

/** Milliseconds of busy samples per step. */
export function shares(profile: Profile): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, { step?: string; jobs: boolean }>();
  const classify = (id: number): { step?: string; jobs: boolean } => {
    const known = memo.get(id);
    if (known) return known;
    const { url, functionName } = byId.get(id)!.callFrame;
    const up = parent.has(id) ? classify(parent.get(id)!) : { jobs: false };
    const own = STEPS.find((s) => s.claims(url, functionName))?.step;
    const result = { step: own ?? up.step, jobs: up.jobs || IN_JOBS(url) };
    // The innermost claim wins: a frame's own step, else its caller's.
    memo.set(id, result);
    return result;
  };
  const totals = new Map<string, number>(ORDER.map((s) => [s, 0]));
  profile.samples.forEach((id, i) => {
    const fn = byId.get(id)!.callFrame.functionName;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    if (fn === '(idle)') return;
    const step =
      fn === '(garbage collector)'
        ? 'garbage collection'
        : fn === '(program)'
          ? 'native, unattributed'
          : classify(id).jobs
            ? DELIVERY
            : (classify(id).step ?? 'other JavaScript');
    totals.set(step, totals.get(step)! + ms);
  });
  return totals;
}

function main(): void {
  const [file, requestsArg] = process.argv.slice(2);
  if (!file) throw new Error('usage: profile-shares <file.cpuprofile> [requests]');
  const totals = shares(JSON.parse(readFileSync(file, 'utf8')) as Profile);
  const busy = [...totals.values()].reduce((a, b) => a + b, 0);
  const requests = requestsArg ? Number(requestsArg) : undefined;
  process.stdout.write(
    `${file}: ${(busy / 1000).toFixed(2)} s busy${requests ? `, ${requests} requests` : ''}\n\n` +
      `| step | share | ${requests ? 'CPU ms per request |' : ''}\n|---|---|${requests ? '---|' : ''}\n`,
  );
  for (const step of ORDER) {
    const ms = totals.get(step)!;
    process.stdout.write(
      `| ${step} | ${((ms / busy) * 100).toFixed(1)} % |${requests ? ` ${(ms / requests).toFixed(3)} |` : ''}\n`,
    );
  }
}

main();
