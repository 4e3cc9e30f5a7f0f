import { useEffect, useState } from 'preact/hooks';
import type { Message, MessageWithDeliveries } from '../../answers.js';
import { call, get } from '../../api.js';
import { useAction } from '../../components/action.js';
import { FormStatus } from '../../components/form.js';
import { AUTHOR, MESSAGE_STATUS, when } from './labels.js';
import { MediaPreview } from './media.js';
import { Button } from '../../components/button.js';
import { useFocusKept } from '../../components/focus.js';

/**
 * One message of a thread: who wrote it (a team reply by the member's name), its text, media and status, and on
 * Messenger or Instagram whether it went as a person's reply after Meta's 24 hours. A failed or skipped one shows its
 * error as the API gave it; a failed one also its delivery attempts and a Retry button (POST /v1/messages/{id}/retry);
 * one still being sent after failed attempts says how many failed and when the next is due. An attempt changes the
 * message's delivery, not the message: while it is being sent, its attempts are read again with every read of the
 * thread (`read`), so the count and the next attempt's time follow the API's.
 */
export function MessageItem(props: { message: Message; read: number; onChanged: () => void }) {
  const m = props.message;
  const outgoing = m.direction === 'outgoing';
  const failed = outgoing && m.status === 'failed';
  const pending = outgoing && m.status === 'pending';
  const retrying = useAction();
  // Sent again, the message is no longer failed and its Retry goes: the focus goes to the message, read anew.
  const focus = useFocusKept<HTMLLIElement>(failed);
  const [detail, setDetail] = useState<MessageWithDeliveries | undefined>(undefined);
  useEffect(() => {
    if (!failed && !pending) return setDetail(undefined);
    void get<MessageWithDeliveries>(`/v1/messages/${encodeURIComponent(m.id)}`).then(
      (res) => res.ok && setDetail(res.data),
    );
  }, [m.id, failed, pending, m.updatedAt, pending ? props.read : 0]);
  const retry = () => {
    focus.pressed();
    return retrying.run(
      () => call('POST', `/v1/messages/${encodeURIComponent(m.id)}/retry`),
      'Sending again…',
      props.onChanged,
    );
  };
  const attempts = detail?.deliveries.flatMap((d) => d.attempts) ?? [];
  const failedAttempts = attempts.filter((a) => a.error !== null).length;
  const nextAttemptAt = detail?.deliveries
    .map((d) => d.nextAttemptAt)
    .filter((at): at is string => Boolean(at))
    .sort()[0];
  const statusText =
    pending && nextAttemptAt
      ? `Retrying: ${failedAttempts} failed ${failedAttempts === 1 ? 'attempt' : 'attempts'}, next at ${when(nextAttemptAt)}`
      : outgoing
        ? (MESSAGE_STATUS[m.status] ?? m.status)
        : m.status === 'received'
          ? 'Received'
          : m.status;
  return (
    <li class={`inbox-msg ${outgoing ? 'inbox-out' : 'inbox-in'}`} ref={focus.box} tabIndex={-1}>
      <p class="inbox-msg-meta">
        <span>{outgoing ? (AUTHOR[m.author ?? ''] ?? 'Sent') : 'Contact'}</span>
        {m.authorName && (
          <>
            {' '}
            · <span class="inbox-msg-author">{m.authorName}</span>
          </>
        )}{' '}
        · <time dateTime={m.createdAt}>{when(m.createdAt)}</time>
      </p>
      {m.messageType === 'reaction' ? (
        <p class="inbox-msg-body">Reacted with {m.body}</p>
      ) : (
        <p class="inbox-msg-body">{m.body}</p>
      )}
      {m.media && <MediaPreview media={m.media} channel={m.channel} outgoing={outgoing} />}
      <p class="inbox-msg-status">
        <span class={`inbox-status inbox-status-${m.status}`}>{statusText}</span>
      </p>
      {m.messageTag === 'HUMAN_AGENT' && (
        <p class="inbox-msg-note">Sent as a person’s reply after 24 h (Meta’s HUMAN_AGENT tag).</p>
      )}
      {m.error && (
        <p class="inbox-msg-error">
          {m.error}
          {m.errorCode && (
            <>
              {' '}
              (<code>{m.errorCode}</code>)
            </>
          )}
        </p>
      )}
      {attempts.length > 0 && (
        <details class="inbox-attempts">
          <summary>Delivery attempts ({attempts.length})</summary>
          <ol>
            {attempts.map((a, i) => (
              <li key={i}>
                <time dateTime={a.at}>{when(a.at)}</time>: {a.error ?? `accepted (HTTP ${a.status})`}
              </li>
            ))}
          </ol>
        </details>
      )}
      {failed && (
        <div class="inbox-retry">
          <Button type="button" class="secondary" unavailable={retrying.busy} onClick={() => void retry()}>
            Retry
          </Button>
          <FormStatus error={retrying.error} />
        </div>
      )}
    </li>
  );
}
