import { useRef, useState } from 'preact/hooks';
import type { Conversation } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { Button } from '../../components/button.js';
import { FormStatus } from '../../components/form.js';
import { acting } from '../../notify/own-actions.js';
import { when } from './labels.js';

const HOUR_MS = 60 * 60 * 1000;

/** At `hour`:00 on the day `days` after `from`, in the browser's time zone: the member's. */
function at(from: Date, days: number, hour: number): Date {
  const day = new Date(from);
  day.setDate(day.getDate() + days);
  day.setHours(hour, 0, 0, 0);
  return day;
}

/**
 * The snooze's ready choices, in the member's time zone: later today (three hours on, on the hour; only while that is
 * still today), tomorrow at 09:00, and next week (Monday at 09:00).
 */
export function snoozeChoices(now: Date): Array<{ value: string; label: string; until: Date }> {
  const later = new Date(now.getTime() + 3 * HOUR_MS);
  later.setMinutes(0, 0, 0);
  const monday = at(now, (8 - now.getDay()) % 7 || 7, 9);
  const time = (d: Date) => d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  const day = (d: Date) => d.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
  return [
    ...(later.toDateString() === now.toDateString()
      ? [{ value: 'later', label: `Later today (${time(later)})`, until: later }]
      : []),
    { value: 'tomorrow', label: `Tomorrow (${time(at(now, 1, 9))})`, until: at(now, 1, 9) },
    { value: 'week', label: `Next week (${day(monday)}, ${time(monday)})`, until: monday },
  ];
}

/**
 * Snooze (POST /v1/conversations/{id}/snooze): out of the inbox until a ready choice or a date and time typed, both in
 * the member's time zone; back then, or when the contact writes. Snoozed, it says until when, with **Wake now**.
 * Never while the contact waits for a reply: it says to answer first, as the API would refuse it.
 */
export function SnoozeControl(props: { conversation: Conversation; me: string; onChanged: (c: Conversation) => void }) {
  const { conversation } = props;
  const snoozing = useAction({ until: 'Snooze until' });
  const [choice, setChoice] = useState('');
  const [typed, setTyped] = useState('');
  const picker = useRef<HTMLSelectElement>(null);
  const path = `/v1/conversations/${encodeURIComponent(conversation.id)}/snooze`;
  if (conversation.status === 'opted_out') return null;
  if (conversation.snoozedUntil) {
    const wake = () =>
      snoozing.run(
        () => {
          acting(props.me, conversation.id);
          return call<Conversation>('DELETE', path);
        },
        'Back in the inbox.',
        (c) => {
          props.onChanged(c);
          // The button goes with the snooze: the focus goes to the choice that replaces it.
          requestAnimationFrame(() => picker.current?.focus());
        },
      );
    return (
      <div class="inbox-assign inbox-snooze">
        <p>
          Snoozed until <time dateTime={conversation.snoozedUntil}>{when(conversation.snoozedUntil)}</time>: out of the
          inbox until then, or until the contact writes.
        </p>
        <Button type="button" class="secondary" unavailable={snoozing.busy} onClick={() => void wake()}>
          Wake now
        </Button>
        <FormStatus error={snoozing.error} done={snoozing.done} />
      </div>
    );
  }
  if (conversation.waitingSince)
    return (
      <div class="inbox-assign inbox-snooze">
        <p class="hint">Snooze: the contact waits for a reply. Answer them first.</p>
      </div>
    );
  const choices = snoozeChoices(new Date());
  const until = () =>
    choice === 'custom' ? (typed ? new Date(typed) : undefined) : choices.find((c) => c.value === choice)?.until;
  const snooze = () => {
    const chosen = until();
    return snoozing.run(
      () => {
        acting(props.me, conversation.id);
        return call<Conversation>('POST', path, {
          until: chosen && !isNaN(chosen.getTime()) ? chosen.toISOString() : '',
        });
      },
      (c) => `Snoozed until ${when(c.snoozedUntil!)}.`,
      (c) => {
        setChoice('');
        setTyped('');
        props.onChanged(c);
      },
    );
  };
  return (
    <div class="inbox-assign inbox-snooze">
      <label for="thread-snooze">Snooze</label>
      <div class="inbox-assign-row">
        <select id="thread-snooze" ref={picker} value={choice} onChange={(e) => setChoice(e.currentTarget.value)}>
          <option value="">Not snoozed</option>
          {choices.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
          <option value="custom">A date and time…</option>
        </select>
        {choice === 'custom' && (
          <>
            <label for="thread-snooze-until">Until</label>
            <input
              id="thread-snooze-until"
              type="datetime-local"
              value={typed}
              onInput={(e) => setTyped(e.currentTarget.value)}
            />
          </>
        )}
        {choice && (
          <Button type="button" class="secondary" unavailable={snoozing.busy} onClick={() => void snooze()}>
            Snooze
          </Button>
        )}
      </div>
      <FormStatus error={snoozing.error} done={snoozing.done} />
    </div>
  );
}
