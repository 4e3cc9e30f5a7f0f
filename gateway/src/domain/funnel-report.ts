import { fieldError } from '../errors.js';
import type { Reader } from '../store/store.js';
import { getCampaign } from './campaigns.js';
import { DAY_MS, FUNNEL_STEPS, QUARTER_MS, type FunnelCounts, type FunnelStep } from './funnel.js';
import { clockNow } from '../clock.js';
import { canonicalZone, offsetAt } from './time-zone.js';
import type { FunnelAnswer } from '../contract/campaigns.js';

/**
 * GET /v1/campaigns/{id}/funnel: how many contacts reached each step, in total over a range of days and day by
 * day, the days being those of a time zone. It reads only the campaign's per-day counts of the range (a few
 * documents per day), whatever the number of contacts.
 */
export type StepCounts = Record<FunnelStep, number>;

export interface FunnelReport {
  campaignId: string;
  from: string;
  to: string;
  timezone: string;
  totals: StepCounts;
  days: Array<{ date: string } & StepCounts>;
}

export interface FunnelQuery {
  from?: string;
  to?: string;
  timezone: string;
}

/** The longest range a report covers, in days. */
export const MAX_DAYS = 366;
const PAGE = 500;

export async function funnelOf(
  r: Reader,
  accountId: string,
  campaignId: string,
  query: FunnelQuery,
): Promise<FunnelAnswer> {
  const campaign = await getCampaign(r, accountId, campaignId);
  // Named back as a sending window keeps it, so the answer says whose days they are ("EST" is Panama's, all year).
  const timezone = canonicalZone(query.timezone);
  const to = query.to ?? localDate(clockNow(), timezone);
  const earliest = addDays(to, -(MAX_DAYS - 1));
  const created = localDate(Date.parse(campaign.createdAt), timezone);
  const from = query.from ?? (created > earliest ? (created < to ? created : to) : earliest);
  if (from > to) throw fieldError('from', 'must not be after to');
  if (from < earliest) throw fieldError('from', `the range from from to to may cover at most ${MAX_DAYS} days`);

  const days = new Map<string, StepCounts>();
  for (let d = from; d <= to; d = addDays(d, 1)) days.set(d, zero());
  // Local days reach at most 14 hours either side of their UTC day.
  const first = addDays(from, -1);
  const last = addDays(to, 1);
  for (const month of monthsBetween(first, last)) {
    for (let after: string | undefined; ; ) {
      const docs = await r.find<FunnelCounts>('funnel_counts', 'month', [campaign.id, month], { limit: PAGE, after });
      for (const doc of docs) if (doc.day >= first && doc.day <= last) addDay(days, doc, timezone);
      if (docs.length < PAGE) break;
      after = docs.at(-1)!.id;
    }
  }
  const totals = zero();
  for (const counts of days.values()) for (const step of FUNNEL_STEPS) totals[step] += counts[step];
  return {
    campaignId: campaign.id,
    from,
    to,
    timezone,
    totals,
    days: [...days].map(([date, counts]) => ({ date, ...counts })),
  };
}

/** Spreads one UTC day's quarter-hour counts over the local days they fall in. */
function addDay(days: Map<string, StepCounts>, doc: FunnelCounts, timezone: string): void {
  const start = Date.parse(`${doc.day}T00:00:00Z`);
  const startOffset = offsetAt(timezone, start);
  const steady = startOffset === offsetAt(timezone, start + DAY_MS - 1);
  for (const [key, n] of Object.entries(doc.counts)) {
    const [step, quarter] = key.split('@') as [FunnelStep, string];
    const at = start + Number(quarter) * QUARTER_MS;
    const date = new Date(at + (steady ? startOffset : offsetAt(timezone, at))).toISOString().slice(0, 10);
    const counts = days.get(date);
    if (counts && step in counts) counts[step] += n;
  }
}

const zero = (): StepCounts => Object.fromEntries(FUNNEL_STEPS.map((s) => [s, 0])) as StepCounts;

export const addDays = (date: string, n: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

function monthsBetween(first: string, last: string): string[] {
  const months: string[] = [];
  for (let m = first.slice(0, 7); m <= last.slice(0, 7); ) {
    months.push(m);
    const [y, mo] = m.split('-').map(Number) as [number, number];
    m = mo === 12 ? `${y + 1}-01` : `${y}-${String(mo + 1).padStart(2, '0')}`;
  }
  return months;
}

const localDate = (at: number, timezone: string) => new Date(at + offsetAt(timezone, at)).toISOString().slice(0, 10);
