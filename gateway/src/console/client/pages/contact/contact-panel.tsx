import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Contact } from '../../answers.js';
import { call, get } from '../../api.js';
import { ConfirmAction } from '../../components/confirm.js';
import { Dialog } from '../../components/dialog.js';
import { FormStatus } from '../../components/form.js';
import { contactName, externalIdLabel, when } from '../inbox/labels.js';
import { Duplicates } from './duplicates.js';
import { EditForm } from './edit-form.js';
import { EraseContact, ExportContact } from './export-erase.js';
import type { ContactChange } from './words.js';

/**
 * One contact's panel, over the thread, list or search it was opened from: its details corrected by any member of
 * the team; for owners and admins, its likely duplicates merged into it, its data exported, and its erasure. Opened
 * from a list, it also takes the contact off that list. Another contact named on the way (a duplicate, the holder
 * of a phone) opens in the same panel.
 */
export function ContactPanel(props: {
  id: string;
  admin: boolean;
  listId?: string;
  onClose: () => void;
  onChanged: (change: ContactChange) => void;
}) {
  const [id, setId] = useState(props.id);
  const [contact, setContact] = useState<Contact | null | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [erased, setErased] = useState<string | undefined>(undefined);
  const load = async () => {
    const res = await get<Contact>(`/v1/contacts/${encodeURIComponent(id)}`);
    setContact(res.ok ? res.data! : res.status === 404 ? null : undefined);
    setError(res.ok || res.status === 404 ? undefined : res.error);
  };
  useEffect(() => void load(), [id]);
  const changed = (change: ContactChange) => {
    props.onChanged(change);
    if (change === 'merged') void load();
  };

  return (
    <Dialog labelledBy="contact-heading" class="contact-panel" onClose={props.onClose}>
      {erased ? (
        <>
          <h2 id="contact-heading">Contact erased</h2>
          <p role="status">{erased} was erased: nothing of them is held any more.</p>
        </>
      ) : contact === undefined ? (
        <>
          <h2 id="contact-heading">Contact</h2>
          {error ? (
            <p class="error" role="alert">
              {error}
            </p>
          ) : (
            <p role="status">Loading…</p>
          )}
        </>
      ) : contact === null ? (
        <>
          <h2 id="contact-heading">Contact not found</h2>
          <p>This contact is no longer there: it was erased, or merged into another.</p>
        </>
      ) : (
        <Fragment key={contact.id}>
          <h2 id="contact-heading">{contactName(contact)}</h2>
          <ContactFacts contact={contact} />
          <EditForm
            contact={contact}
            admin={props.admin}
            onOpen={setId}
            onMerged={() => changed('merged')}
            onSaved={(c) => {
              setContact(c);
              props.onChanged('edited');
            }}
          />
          {props.listId && id === props.id && (
            <RemoveFromList listId={props.listId} contact={contact} onRemoved={() => props.onChanged('removed')} />
          )}
          {props.admin && (
            <>
              <Duplicates contact={contact} onOpen={setId} onMerged={() => changed('merged')} />
              <ExportContact contact={contact} />
              <EraseContact
                contact={contact}
                onErased={() => {
                  setErased(contactName(contact));
                  props.onChanged('erased');
                }}
              />
            </>
          )}
        </Fragment>
      )}
    </Dialog>
  );
}

/** What the panel cannot change: how the contact is known on channels, consent, and since when. */
function ContactFacts(props: { contact: Contact }) {
  const c = props.contact;
  return (
    <dl class="facts contact-facts">
      {c.fromId && (
        <>
          <dt>Contact ID</dt>
          <dd>{c.fromId}</dd>
        </>
      )}
      {Object.entries(c.externalIds ?? {}).map(([label, value]) => (
        <Fragment key={label}>
          <dt>ID on {externalIdLabel(label)}</dt>
          <dd>{value}</dd>
        </Fragment>
      ))}
      {c.optOut && (
        <>
          <dt>Opted out</dt>
          <dd>
            “{c.optOut.keyword.toUpperCase()}”, {when(c.optOut.at)}
          </dd>
        </>
      )}
      <dt>Added</dt>
      <dd>{when(c.createdAt)}</dd>
    </dl>
  );
}

/** DELETE /v1/lists/{listId}/contacts/{contactId}: the contact stays, only its place on the list goes. */
function RemoveFromList(props: { listId: string; contact: Contact; onRemoved: () => void }) {
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<{ error?: string; done?: string }>({});
  const remove = async () => {
    setBusy(true);
    const res = await call(
      'DELETE',
      `/v1/lists/${encodeURIComponent(props.listId)}/contacts/${encodeURIComponent(props.contact.id)}`,
    );
    setBusy(false);
    setStatus(res.ok ? { done: `${contactName(props.contact)} is no longer on this list.` } : { error: res.error });
    if (res.ok) props.onRemoved();
  };
  return (
    <section class="contact-section" aria-labelledby="list-heading">
      <h3 id="list-heading">This list</h3>
      {status.done ? null : (
        <ConfirmAction
          label="Remove from this list"
          confirmLabel="Remove"
          busy={busy}
          warning={`${contactName(props.contact)} leaves this list; the contact and their conversations stay.`}
          onConfirm={remove}
        />
      )}
      <FormStatus error={status.error} done={status.done} />
    </section>
  );
}
