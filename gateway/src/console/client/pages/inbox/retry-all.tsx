import type { RetryReport } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { FormStatus } from '../../components/form.js';
import { Button } from '../../components/button.js';
import { useFocusKept } from '../../components/focus.js';
import { queuedAgain } from '../campaigns/failed-openings.js';

/**
 * What a retry did, in one sentence: how many went again, how many campaign openings went back to their campaign's
 * queue, and why the others could not.
 */
function summary(r: RetryReport): string {
  const now = r.retried.length - r.queued.length;
  const sent = [
    ...(now || !r.queued.length ? [`${now} ${now === 1 ? 'message' : 'messages'} sent again.`] : []),
    ...(r.queued.length ? [queuedAgain(r.queued.length)] : []),
  ].join(' ');
  const reasons = [...new Set(r.refused.map((x) => x.message))];
  const refused = r.refused.length ? ` ${r.refused.length} could not go: ${reasons.join('; ')}.` : '';
  return `${sent}${refused}${r.more ? ' More conversations hold failed messages: retry again.' : ''}`;
}

/**
 * "Retry all failed", for one conversation (POST /v1/conversations/{id}/retry-failed) or every conversation of the
 * account (POST /v1/conversations/retry-failed): after credits are granted or a receiver is back, one click sends
 * the failed messages again. `shown` false (none left to retry) hides the button alone: what the last retry did stays
 * told, and the focus stays here.
 */
export function RetryAllFailed(props: { conversationId?: string; label: string; shown?: boolean; onDone: () => void }) {
  const retrying = useAction();
  const shown = props.shown ?? true;
  const focus = useFocusKept<HTMLDivElement>(shown);
  const path = props.conversationId
    ? `/v1/conversations/${encodeURIComponent(props.conversationId)}/retry-failed`
    : '/v1/conversations/retry-failed';
  const run = async () => {
    focus.pressed();
    await retrying.run(() => call<RetryReport>('POST', path), summary);
    props.onDone();
  };
  return (
    <div class="inbox-retry-all" ref={focus.box} tabIndex={-1}>
      {shown && (
        <Button type="button" class="secondary" unavailable={retrying.busy} onClick={() => void run()}>
          {props.label}
        </Button>
      )}
      <FormStatus error={retrying.error} done={retrying.done} />
    </div>
  );
}
