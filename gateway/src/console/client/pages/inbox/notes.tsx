import { useState } from 'preact/hooks';
import { TEXT_LIMITS } from '../../../../api-contract.js';
import type { Message, Note } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { Button } from '../../components/button.js';
import { ConfirmAction } from '../../components/confirm.js';
import { FormStatus } from '../../components/form.js';
import { useIdempotencyKey } from '../../components/idempotency-key.js';
import { LongText } from '../../components/long-text.js';
import { when } from './labels.js';

export const notesPath = (conversationId: string) => `/v1/conversations/${encodeURIComponent(conversationId)}/notes`;

/** A message or a note of the thread, in the order of their times. */
export type ThreadItem = { message: Message } | { note: Note };

/**
 * The messages shown with the notes among them by time, a note after a message of the same moment. With earlier
 * messages still to show, a note older than the first shown waits for them, as those messages do.
 */
export function byTime(messages: Message[], notes: Note[], earlierToShow: boolean): ThreadItem[] {
  const from = earlierToShow ? messages[0]?.createdAt : undefined;
  const shown = notes.filter((n) => from === undefined || n.createdAt >= from);
  const items: ThreadItem[] = [];
  let next = 0;
  for (const message of messages) {
    while (next < shown.length && shown[next]!.createdAt < message.createdAt) items.push({ note: shown[next++]! });
    items.push({ message });
  }
  while (next < shown.length) items.push({ note: shown[next++]! });
  return items;
}

/** Who wrote a note, as it is headed: a member by name, a workflow for the API key. */
const writer = (n: Note) => n.authorName ?? 'a workflow (API)';

/**
 * A note of the team's among the messages: set apart by its look and its words ("only your team sees this"), and
 * named for a screen reader as a note, not a message. Its author, the owner and admins may delete it, asked twice:
 * a deleted note is gone for the whole team.
 */
export function NoteItem(props: { note: Note; deletable: boolean; onDeleted: () => void }) {
  const n = props.note;
  const deleting = useAction();
  const remove = () =>
    deleting.run(
      () => call('DELETE', `${notesPath(n.conversationId)}/${encodeURIComponent(n.id)}`),
      '',
      () => props.onDeleted(),
    );
  return (
    <li class="inbox-note">
      <div role="note" aria-label={`Note by ${writer(n)}`}>
        <p class="inbox-msg-meta">
          <strong>Note by {writer(n)}</strong> · only your team sees this ·{' '}
          <time dateTime={n.createdAt}>{when(n.createdAt)}</time>
        </p>
        <p class="inbox-msg-body">{n.text}</p>
        {props.deletable && (
          <div class="inbox-retry">
            <ConfirmAction
              label="Delete"
              name={`Delete the note by ${writer(n)}`}
              confirmLabel="Delete the note"
              busy={deleting.busy}
              warning="Your team will no longer see it: a deleted note cannot be brought back."
              onConfirm={remove}
            />
            <FormStatus error={deleting.error} />
          </div>
        )}
      </div>
    </li>
  );
}

/**
 * Add a note: words for the team alone, beside the reply box and apart from it, so that a note is never sent to the
 * contact by mistake. Each goes with an Idempotency-Key kept until it is added, as a reply does.
 */
export function NoteForm(props: { conversationId: string; onAdded: () => void }) {
  const adding = useAction({ text: 'Note for your team' });
  const [text, setText] = useState('');
  const key = useIdempotencyKey();
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    const body = { text };
    void adding.run(
      () => call<Note>('POST', notesPath(props.conversationId), body, key.headers(body)),
      'Note added: only your team sees it.',
      () => {
        key.made();
        setText('');
        props.onAdded();
      },
    );
  };
  return (
    <form class="inbox-note-form" onSubmit={submit} aria-labelledby="note-heading">
      <h3 id="note-heading">Add a note</h3>
      <LongText
        id="note-text"
        label="Note for your team"
        value={text}
        onChange={setText}
        required
        rows={2}
        max={TEXT_LIMITS.note}
        hint="Only your team sees it: it is never sent to the contact, nor read by the bot."
      />
      <Button type="submit" class="secondary" unavailable={adding.busy}>
        Add note
      </Button>
      <FormStatus error={adding.error} done={adding.done} />
    </form>
  );
}
