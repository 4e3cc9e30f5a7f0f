import { useEffect, useState } from 'preact/hooks';
import { canAct, TEXT_LIMITS } from '../../../../api-contract.js';
import type { SavedReply } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { Button } from '../../components/button.js';
import { ConfirmAction } from '../../components/confirm.js';
import { Field, FormStatus, Panel } from '../../components/form.js';
import { useIdempotencyKey } from '../../components/idempotency-key.js';
import { Loading } from '../../components/load.js';
import { LongText } from '../../components/long-text.js';
import { PageTitle } from '../../components/shell.js';
import type { SessionInfo } from '../../session.js';
import { allPages } from '../lists/paged.js';
import { SAVED_REPLIES_PATH } from '../inbox/saved-reply-picker.js';

const TEXT_HINT =
  'It may hold a campaign message’s placeholders, filled in for the contact when it is put in the reply box: ' +
  '{{first_name}}, {{last_name}}, {{full_name}}, {{phone}}, {{email}}, {{custom.<field>}}, each with a fallback ' +
  'after a bar: {{first_name|there}}.';

const LABELS = { name: 'Name', text: 'Text' };

/** The name and text of a saved reply, new or changed: the same fields for both, under ids of their own. */
function ReplyFields(props: {
  id: string;
  name: string;
  text: string;
  onName: (v: string) => void;
  onText: (v: string) => void;
}) {
  return (
    <>
      <Field
        id={`${props.id}-name`}
        label="Name"
        hint="What your team finds it by in the reply box: unique in the account."
        value={props.name}
        required
        maxLength={TEXT_LIMITS.savedReplyName}
        onInput={(e) => props.onName(e.currentTarget.value)}
      />
      <LongText
        id={`${props.id}-text`}
        label="Text"
        value={props.text}
        onChange={props.onText}
        required
        rows={4}
        max={TEXT_LIMITS.savedReply}
        hint={TEXT_HINT}
      />
    </>
  );
}

/** Save a reply for the whole team; every member may. Each goes with an Idempotency-Key kept until it is saved. */
function AddSavedReply(props: { onAdded: () => void }) {
  const adding = useAction({ name: 'Name', text: 'Text' });
  const [name, setName] = useState('');
  const [text, setText] = useState('');
  const key = useIdempotencyKey();
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    const body = { name, text };
    void adding.run(
      () => call<SavedReply>('POST', SAVED_REPLIES_PATH, body, key.headers(body)),
      (s) => `“${s.name}” saved: your team finds it under Saved replies in every reply box.`,
      () => {
        key.made();
        setName('');
        setText('');
        props.onAdded();
      },
    );
  };
  return (
    <Panel title="Add a saved reply" id="saved-reply-add-heading">
      <form onSubmit={submit} aria-labelledby="saved-reply-add-heading">
        <ReplyFields id="saved-reply-new" name={name} text={text} onName={setName} onText={setText} />
        <Button type="submit" class="primary" unavailable={adding.busy}>
          Save reply
        </Button>
        <FormStatus error={adding.error} done={adding.done} />
      </form>
    </Panel>
  );
}

/** One saved reply: read, and changed or deleted by its author, the owner and admins. */
function SavedReplyItem(props: { reply: SavedReply; mayChange: boolean; onChanged: () => void }) {
  const s = props.reply;
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(s.name);
  const [text, setText] = useState(s.text);
  const saving = useAction(LABELS);
  const deleting = useAction();
  const headingId = `saved-reply-${s.id}-heading`;
  const save = (e: SubmitEvent) => {
    e.preventDefault();
    void saving.run(
      () => call<SavedReply>('PATCH', `${SAVED_REPLIES_PATH}/${encodeURIComponent(s.id)}`, { name, text }),
      (changed) => `“${changed.name}” saved.`,
      () => {
        setEditing(false);
        props.onChanged();
      },
    );
  };
  const remove = () =>
    deleting.run(
      () => call('DELETE', `${SAVED_REPLIES_PATH}/${encodeURIComponent(s.id)}`),
      '',
      () => props.onChanged(),
    );
  return (
    <li class="saved-reply">
      <h3 id={headingId}>{s.name}</h3>
      {editing ? (
        <form onSubmit={save} aria-label={`Change ${s.name}`}>
          <ReplyFields id={`saved-reply-${s.id}`} name={name} text={text} onName={setName} onText={setText} />
          <Button type="submit" class="primary" unavailable={saving.busy}>
            Save changes
          </Button>{' '}
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setEditing(false);
              setName(s.name);
              setText(s.text);
            }}
          >
            Cancel
          </button>
          <FormStatus error={saving.error} />
        </form>
      ) : (
        <>
          <p class="saved-reply-text">{s.text}</p>
          <p class="hint">Saved by {s.authorName ?? 'a workflow (API)'}</p>
          {props.mayChange && (
            <div class="inbox-reply-actions">
              <button
                type="button"
                class="secondary"
                aria-label={`Edit ${s.name}`}
                onClick={() => {
                  setName(s.name);
                  setText(s.text);
                  setEditing(true);
                }}
              >
                Edit
              </button>
              <ConfirmAction
                label="Delete"
                name={`Delete ${s.name}`}
                confirmLabel="Delete for the whole team"
                warning={`“${s.name}” goes from every member’s reply box.`}
                busy={deleting.busy}
                danger
                onConfirm={remove}
              />
            </div>
          )}
          <FormStatus error={deleting.error} done={saving.done} />
        </>
      )}
    </li>
  );
}

/**
 * Settings › Saved replies: the answers the team types again and again, saved once for everyone (GET, POST, PATCH,
 * DELETE /v1/saved-replies), put in a conversation's reply box from the Inbox. Every member adds them; their author,
 * the owner and admins change and delete them, as the API allows.
 */
export function SavedRepliesPage({ session }: { session: SessionInfo }) {
  const [replies, setReplies] = useState<SavedReply[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const reload = async () => {
    const res = await allPages<SavedReply>(SAVED_REPLIES_PATH);
    setError(res.error);
    if (!res.error) setReplies(res.items);
  };
  useEffect(() => void reload(), []);
  const { member } = session;
  const mayChange = (s: SavedReply) => canAct(member.role, 'admin') || s.authorId === member.id;
  return (
    <>
      <PageTitle>Saved replies</PageTitle>
      <AddSavedReply onAdded={() => void reload()} />
      <Panel title="Your team’s saved replies" id="saved-replies-heading">
        {replies ? (
          replies.length === 0 ? (
            <p class="current">
              None yet. In the Inbox, type / in an empty reply box, or press Saved replies, to put one in.
            </p>
          ) : (
            <ul class="saved-reply-list">
              {replies.map((s) => (
                <SavedReplyItem key={s.id} reply={s} mayChange={mayChange(s)} onChanged={() => void reload()} />
              ))}
            </ul>
          )
        ) : (
          <Loading error={error} />
        )}
        <p class="hint">
          Sorted by name. Every member of your team uses them; whoever saved one changes and deletes it, and so do the
          owner and admins.
        </p>
      </Panel>
    </>
  );
}
