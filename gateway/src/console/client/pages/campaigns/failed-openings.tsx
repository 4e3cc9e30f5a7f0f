import type { CampaignOpenings, RetryReport } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { CREDITS_PATH } from '../../components/balance.js';
import { FormStatus } from '../../components/form.js';
import { Link } from '../../router.js';
import { plural } from './reach.js';
import { Button } from '../../components/button.js';

/** Why openings failed, in words, by the API's error code; the code itself when it is new to the console. */
const CODE_WORDS: Record<string, string> = {
  INSUFFICIENT_CREDITS: 'for want of credits',
  NO_RECEIVER: 'for want of a Custom Channel Webhook URL to take them',
  CONTACT_LEFT_LIST: 'as their contacts left the list',
  CONTACT_OPTED_OUT: 'as their contacts opted out',
  CONTACT_WROTE_SINCE: 'as their contacts wrote first',
  CAMPAIGN_NOT_LIVE: 'as the campaign was no longer Live',
  OPENING_SUPERSEDED: 'as their contacts have another opening message of the campaign',
};

/** Openings a retry put back in their campaign's queue, in one sentence. */
export const queuedAgain = (count: number): string =>
  `${plural(count, 'opening message', 'opening messages')} queued again: they go at the campaign’s pace, within its sending window.`;

/**
 * What a retry did, in one sentence: how many went back to the campaign's queue (they go at its pace, within its
 * sending window, not all at once now), any sent at once (stored before openings were queued), and why the others
 * could not.
 */
function summary(r: RetryReport): string {
  const now = r.retried.length - r.queued.length;
  const went = [
    ...(r.queued.length ? [queuedAgain(r.queued.length)] : []),
    ...(now ? [`${plural(now, 'opening message', 'opening messages')} sent again.`] : []),
  ];
  const sent = went.length ? went.join(' ') : 'No opening message queued again.';
  const reasons = [...new Set(r.refused.map((x) => x.message))];
  const refused = r.refused.length ? ` ${r.refused.length} could not go: ${reasons.join('; ')}.` : '';
  return `${sent}${refused}${r.more ? ' More failed openings are left: retry again.' : ''}`;
}

/**
 * The campaign's opening messages that failed and are still failed (GET /v1/campaigns/{id}/openings), by reason,
 * with their retry (POST /v1/campaigns/{id}/openings/retry-failed): after credits are granted, one click puts them
 * back in the campaign's queue.
 */
export function FailedOpenings(props: { campaignId: string; openings?: CampaignOpenings; onRetried: () => void }) {
  const retrying = useAction();
  const failed = props.openings?.failed;
  const retry = async () => {
    await retrying.run(
      () => call<RetryReport>('POST', `/v1/campaigns/${encodeURIComponent(props.campaignId)}/openings/retry-failed`),
      summary,
    );
    props.onRetried();
  };
  if (!failed || (failed.count === 0 && !retrying.done && !retrying.error)) return null;
  const reasons = Object.entries(failed.byCode).filter(([, count]) => count > 0);
  return (
    <div
      class={failed.count > 0 ? 'warning failed-openings' : 'failed-openings'}
      role="group"
      aria-label="Failed opening messages"
    >
      {failed.count > 0 && (
        <>
          <p data-count="opening-failed">
            {failed.more ? 'More than ' : ''}
            {plural(failed.count, 'opening message', 'opening messages')} failed and{' '}
            {failed.count === 1 ? 'was' : 'were'} not sent:
          </p>
          <ul>
            {reasons.map(([code, count]) => (
              <li key={code}>
                {plural(count, 'opening', 'openings')} {CODE_WORDS[code] ?? `(${code})`}
              </li>
            ))}
          </ul>
          {failed.byCode.INSUFFICIENT_CREDITS ? (
            <p>
              Once credits are granted, retry them. <Link href={CREDITS_PATH}>See your credits</Link>
            </p>
          ) : null}
          <p>
            <Button type="button" class="secondary" unavailable={retrying.busy} onClick={() => void retry()}>
              Retry failed openings
            </Button>
          </p>
        </>
      )}
      <FormStatus error={retrying.error} done={retrying.done} />
    </div>
  );
}
