import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { removeDir, request, startGateway } from '../helpers/gateway';

/**
 * The alerting rules shipped with the gateway (gateway/alerts/leadchat.rules.yml) load in Prometheus and watch what
 * the gateway exports: every expression parses with Prometheus's own PromQL grammar and names only metrics a real
 * gateway's /metrics declares, and every rule says what it is and how bad.
 */
jest.setTimeout(60_000);

const RULES_FILE = path.resolve(__dirname, '../../gateway/alerts/leadchat.rules.yml');

type PromQL = typeof import('@prometheus-io/lezer-promql', { with: { 'resolution-mode': 'import' } });
let parser: PromQL['parser'];
beforeAll(async () => {
  ({ parser } = (await import('@prometheus-io/lezer-promql')) as PromQL);
});

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string; description: string };
}

const rules: Rule[] = (parse(readFileSync(RULES_FILE, 'utf8')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap(
  (group) => group.rules,
);

/** The metric names an expression reads; throws on a syntax error, with where it is. */
function metricsOf(expr: string): string[] {
  const names: string[] = [];
  parser.parse(expr).iterate({
    enter: (node) => {
      if (node.type.isError) throw new Error(`PromQL syntax error at ${node.from} in: ${expr}`);
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector')
        names.push(expr.slice(node.from, node.to));
    },
  });
  return names;
}

/** The series names a scrape declares: each family's, and a histogram's or summary's own suffixes. */
function exported(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}

test('the rules cover what an operator is paged for: the store, the disk, jobs, deliveries, 5xx, the certificate', () => {
  const read = new Set(rules.flatMap((rule) => metricsOf(rule.expr)));
  for (const metric of [
    'leadchat_store_up',
    'leadchat_data_dir_free_bytes',
    'leadchat_jobs_dead',
    'leadchat_jobs_oldest_due_seconds',
    'leadchat_job_attempts_failed_total',
    'leadchat_webhook_deliveries_total',
    'leadchat_http_requests_total',
    'leadchat_tls_certificate_expiry_timestamp_seconds',
  ])
    expect({ metric, read: read.has(metric) }).toEqual({ metric, read: true });
  for (const rule of rules) {
    expect(rule).toEqual({
      alert: expect.stringMatching(/^LeadChat[A-Z]\w+$/),
      expr: expect.any(String),
      ...(rule.for === undefined ? {} : { for: expect.stringMatching(/^\d+[smh]$/) }),
      labels: { severity: expect.stringMatching(/^(warning|critical)$/) },
      annotations: { summary: expect.any(String), description: expect.any(String) },
    });
  }
  expect(new Set(rules.map((rule) => rule.alert)).size).toBe(rules.length);
});

test('a syntax error is caught, and so is a name the gateway does not export', async () => {
  expect(() => metricsOf('sum(rate(leadchat_http_requests_total[5m])')).toThrow(/syntax error/);
  expect(metricsOf('max by (kind) (leadchat_jobs_dead) > 0 and on() absent(leadchat_no_such_metric)')).toEqual([
    'leadchat_jobs_dead',
    'leadchat_no_such_metric',
  ]);
});

test("every expression parses and names only metrics a running gateway's /metrics declares", async () => {
  const gw = await startGateway();
  try {
    const res = await request(gw, 'GET', '/metrics', { headers: { authorization: `Bearer ${gw.adminToken}` } });
    expect(res.status).toBe(200);
    const declared = exported(res.text);
    for (const rule of rules) {
      const unknown = metricsOf(rule.expr).filter((name) => !declared.has(name));
      expect({ alert: rule.alert, unknown }).toEqual({ alert: rule.alert, unknown: [] });
    }
    // The gauges the disk and certificate rules read have values, not only declarations.
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(res.text)?.[1]);
    expect(value('leadchat_data_dir_size_bytes')).toBeGreaterThan(0);
    expect(value('leadchat_data_dir_free_bytes')).toBeGreaterThan(0);
    expect(value('leadchat_data_dir_free_bytes')).toBeLessThanOrEqual(value('leadchat_data_dir_size_bytes'));
    // The generated certificate is valid for years.
    expect(value('leadchat_tls_certificate_expiry_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000 + 365 * 86400);
  } finally {
    await gw.stop();
    removeDir(gw.dataDir);
  }
});

test('every label an alert names in its words is one its expression keeps', () => {
  for (const rule of rules) {
    const named = new Set(
      [...`${rule.annotations.summary} ${rule.annotations.description}`.matchAll(/\$labels\.(\w+)/g)].map((m) => m[1]!),
    );
    // An aggregation keeps only the labels of its `by`: "on {{ $labels.instance }}" of a sum over every process
    // would name no process.
    const kept = [...rule.expr.matchAll(/\b(?:sum|min|max|avg|count|group)\s*(?:by\s*\(([^)]*)\))?\s*\(/g)].map(
      (m) => new Set((m[1] ?? '').split(',').map((label) => label.trim())),
    );
    const lost = [...named].filter((label) => kept.some((labels) => !labels.has(label)));
    expect({ alert: rule.alert, lost }).toEqual({ alert: rule.alert, lost: [] });
  }
});
