import { useLayoutEffect, useRef } from 'preact/hooks';
import type { Campaign, ListContact, OpeningPrice, PageOf, Reached } from '../../answers.js';
import { call, get, type ApiResult } from '../../api.js';
import { daysText } from './campaign.js';
import { CostWarning } from './opening-cost.js';
import { plural, ReasonList } from './reach.js';
import { Button } from '../../components/button.js';

/**
 * The contacts already on a campaign's list when it goes Live: a list's new contacts get the opening message, and
 * those already there get it only when asked (POST /v1/campaigns/{id}/reach-existing). The console asks before a
 * campaign goes Live, and offers it on a Live campaign's page, saying how many and how long the pacing takes.
 */

/** How many contacts a list holds: counted a page at a time, up to COUNT_PAGES pages (`more`: it holds more). */
export interface ListCount {
  count: number;
  more: boolean;
}

const COUNT_PAGE = 200;
const COUNT_PAGES = 5;

export async function countList(listId: string): Promise<ListCount | undefined> {
  let count = 0;
  let cursor: string | null = null;
  for (let n = 0; n < COUNT_PAGES; n++) {
    const res: ApiResult<PageOf<ListContact>> = await get(
      `/v1/lists/${encodeURIComponent(listId)}/contacts?limit=${COUNT_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    if (!res.ok) return undefined;
    count += res.data!.data.length;
    cursor = res.data!.nextCursor;
    if (!cursor) return { count, more: false };
  }
  return { count, more: true };
}

/** The opening messages that go at once when contacts arrive together (engine/pacing.ts's BURST). */
const BURST = 3;
const UNITS: Record<string, { ms: number; word: string }> = {
  s: { ms: 1_000, word: 'second' },
  m: { ms: 60_000, word: 'minute' },
  h: { ms: 3_600_000, word: 'hour' },
  d: { ms: 86_400_000, word: 'day' },
};

/** "about 9 minutes", "under a minute". */
function about(ms: number): string {
  if (ms < 60_000) return 'under a minute';
  const minutes = Math.round(ms / 60_000);
  if (minutes < 90) return `about ${plural(minutes, 'minute', 'minutes')}`;
  const hours = Math.round(ms / 3_600_000);
  if (hours < 48) return `about ${plural(hours, 'hour', 'hours')}`;
  return `about ${plural(Math.round(ms / 86_400_000), 'day', 'days')}`;
}

/**
 * How long `n` opening messages take at the campaign's send rate, as the gateway paces them: the first 3 at once,
 * then one per interval (the rate's period divided by its count). "they go at once" for 3 or fewer.
 */
export function pacingText(n: number, campaign: Pick<Campaign, 'sendRate' | 'sendingWindow'>, atLeast = false): string {
  const rate = /^(\d+)\/([smhd])$/.exec(campaign.sendRate.trim());
  const w = campaign.sendingWindow;
  const window = w ? `, within the sending window (${daysText(w.days)}, ${w.start}–${w.end}, ${w.timezone})` : '';
  if (n <= BURST && !atLeast) return `they go at once${window}`;
  if (!rate) return `paced at ${campaign.sendRate}${window}`;
  const count = Number(rate[1]);
  const unit = UNITS[rate[2]!]!;
  const ms = Math.max(0, n - BURST) * Math.ceil(unit.ms / count);
  return `${atLeast ? 'at least ' : ''}${about(ms)} at ${count.toLocaleString('en-US')} per ${unit.word}${window}`;
}

/** "the 30 contacts already on the list", or without a number when the list holds more than were counted. */
const theContacts = (c: ListCount) =>
  c.more
    ? `the contacts already on the list (more than ${c.count.toLocaleString('en-US')})`
    : `the ${plural(c.count, 'contact', 'contacts')} already on the list`;

export const reachExisting = (campaignId: string) =>
  call<Reached>('POST', `/v1/campaigns/${encodeURIComponent(campaignId)}/reach-existing`);

/**
 * "Also message the 30 contacts already on the list?", with how long the pacing takes; the first answer takes focus,
 * so a keyboard user answers at once. `also`: asked while the campaign goes Live.
 */
export function ReachQuestion(props: {
  campaign: Pick<Campaign, 'sendRate' | 'sendingWindow'>;
  count: ListCount;
  /** What the openings cost: a warning when the balance cannot pay for them. */
  cost?: OpeningPrice;
  also: boolean;
  yes: string;
  no?: string;
  busy?: boolean;
  onYes: () => void;
  onNo?: () => void;
  onCancel: () => void;
}) {
  const first = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => first.current?.focus(), []);
  const question = `${props.also ? 'Also message' : 'Message'} ${theContacts(props.count)}?`;
  return (
    <div
      class="confirm reach-question"
      role="alertdialog"
      aria-labelledby="reach-question"
      aria-describedby="reach-question-detail"
    >
      <p id="reach-question">
        <strong>{question}</strong>
      </p>
      <p id="reach-question-detail">
        Each of them who has not had this campaign’s opening message gets it, paced like new contacts:{' '}
        {pacingText(props.count.count, props.campaign, props.count.more)}.
        {props.also && ' New contacts added to the list get it either way.'}
      </p>
      <CostWarning cost={props.cost} contacts={props.count.count} atLeast={props.count.more} />
      <Button type="button" buttonRef={first} class="primary" unavailable={props.busy} onClick={props.onYes}>
        {props.yes}
      </Button>{' '}
      {props.no && (
        <>
          <Button type="button" class="secondary" unavailable={props.busy} onClick={props.onNo}>
            {props.no}
          </Button>{' '}
        </>
      )}
      <Button type="button" class="secondary" unavailable={props.busy} onClick={props.onCancel}>
        Cancel
      </Button>
    </div>
  );
}

/** What reaching the list's contacts did, in words: the openings queued and how long they take, and who could not be reached, why. */
export function ReachReport(props: {
  reached: Reached;
  campaign: Pick<Campaign, 'channel' | 'customChannel' | 'sendRate' | 'sendingWindow'>;
}) {
  const { queued, unreachable } = props.reached;
  const missed = Object.values(unreachable).reduce((sum, n) => sum + n, 0);
  return (
    <div class="current reach-report" role="status" aria-label="Contacts already on the list">
      <p>
        {queued > 0
          ? `Opening messages queued for ${plural(queued, 'contact', 'contacts')} already on the list: ${pacingText(queued, props.campaign)}.`
          : missed > 0
            ? 'No opening message was queued.'
            : 'No opening message was queued: every contact on the list has had this campaign’s opening message already.'}
      </p>
      {missed > 0 && (
        <>
          <p>{plural(missed, 'contact', 'contacts')} could not be reached:</p>
          <ReasonList counts={unreachable} campaign={props.campaign} />
        </>
      )}
    </div>
  );
}
