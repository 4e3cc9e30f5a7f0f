import { useEffect, useState } from 'preact/hooks';
import type { Contact } from '../../answers.js';
import { call, get, type ApiResult } from '../../api.js';
import { Field, FormStatus } from '../../components/form.js';
import { errorText, type FieldLabels } from '../../components/problems.js';
import { contactName } from '../inbox/labels.js';
import { mergeInto } from './duplicates.js';
import { refusal } from './words.js';
import { Button } from '../../components/button.js';

const LABELS: FieldLabels = {
  firstName: 'First name',
  lastName: 'Last name',
  phone: 'Phone',
  email: 'Email',
  customFields: 'Custom fields',
  'customFields.*': 'Custom field',
};

type Row = { key: string; value: string };
type Patch = Record<string, unknown>;

type Basics = Pick<Contact, 'firstName' | 'lastName' | 'phone' | 'email'>;
const basicsOf = (c: Contact): Basics => ({
  firstName: c.firstName,
  lastName: c.lastName,
  phone: c.phone,
  email: c.email,
});
const rowsOf = (c: Contact): Row[] =>
  Object.entries(c.customFields ?? {}).map(([key, value]) => ({ key, value: value === null ? '' : String(value) }));

/** The custom fields the form changed: a new or changed value as typed, a removed key null; one left alone keeps its type. */
function fieldChanges(before: Contact['customFields'], rows: Row[]): Record<string, string | null> | undefined {
  const old = before ?? {};
  const changes: Record<string, string | null> = {};
  const kept = new Set<string>();
  for (const { key, value } of rows) {
    const k = key.trim();
    if (!k) continue;
    kept.add(k);
    if (!(k in old) || String(old[k] ?? '') !== value) changes[k] = value;
  }
  for (const k of Object.keys(old)) if (!kept.has(k)) changes[k] = null;
  return Object.keys(changes).length ? changes : undefined;
}

/** A 409 CONTACT_EXISTS: the contact that holds the phone or email asked for, and which of the two it is. */
interface Conflict {
  other: Contact;
  field: 'phone' | 'email';
  patch: Patch;
}

/**
 * PATCH /v1/contacts/{id}: the names, phone, email and custom fields, every member of the team. A phone or email
 * another contact holds is named, with a way to it, and for owners and admins an offer to merge that contact into
 * this one and save.
 */
export function EditForm(props: {
  contact: Contact;
  admin: boolean;
  onSaved: (c: Contact) => void;
  onMerged: () => void;
  onOpen: (id: string) => void;
}) {
  const { contact } = props;
  const [basics, setBasics] = useState<Basics>(() => basicsOf(contact));
  const [rows, setRows] = useState<Row[]>(() => rowsOf(contact));
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<{ error?: string; done?: string }>({});
  const [conflict, setConflict] = useState<Conflict | undefined>(undefined);
  // The contact read again (saved, or another merged into it): the form shows what is held now.
  useEffect(() => {
    setBasics(basicsOf(contact));
    setRows(rowsOf(contact));
  }, [contact]);

  const save = async (patch: Patch) => {
    setBusy(true);
    setStatus({});
    setConflict(undefined);
    const res = await call<Contact>('PATCH', `/v1/contacts/${encodeURIComponent(contact.id)}`, patch);
    setBusy(false);
    if (res.ok) {
      setStatus({ done: 'Contact saved.' });
      return props.onSaved(res.data!);
    }
    if (res.code === 'CONTACT_EXISTS' && res.contactId) {
      const other = await get<Contact>(`/v1/contacts/${encodeURIComponent(res.contactId)}`);
      if (other.ok) {
        const field = /^email/i.test(res.error ?? '') ? 'email' : 'phone';
        return setConflict({ other: other.data!, field, patch });
      }
    }
    setStatus({ error: errorText(res, LABELS) });
  };
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    const text = (value: string) => value.trim() || null;
    void save({
      firstName: text(basics.firstName),
      lastName: text(basics.lastName),
      phone: text(basics.phone),
      email: text(basics.email),
      customFields: fieldChanges(contact.customFields, rows),
    });
  };
  const mergeAndSave = async (c: Conflict) => {
    setBusy(true);
    const merged: ApiResult<Contact> = await mergeInto(contact.id, c.other.id);
    setBusy(false);
    if (!merged.ok) return setStatus({ error: refusal(merged, 'merge contacts') });
    await save(c.patch);
    // Read again once saved, so the panel shows the contact as both steps left it.
    props.onMerged();
  };
  const setRow = (i: number, row: Partial<Row>) => setRows(rows.map((r, n) => (n === i ? { ...r, ...row } : r)));

  return (
    <form class="contact-edit" onSubmit={submit} aria-labelledby="edit-heading">
      <h3 id="edit-heading">Details</h3>
      <div class="contact-edit-names">
        <Field
          id="contact-first-name"
          label="First name"
          value={basics.firstName}
          onInput={(e) => setBasics({ ...basics, firstName: e.currentTarget.value })}
          autocomplete="off"
        />
        <Field
          id="contact-last-name"
          label="Last name"
          value={basics.lastName}
          onInput={(e) => setBasics({ ...basics, lastName: e.currentTarget.value })}
          autocomplete="off"
        />
      </div>
      <Field
        id="contact-phone"
        label="Phone"
        type="tel"
        value={basics.phone}
        onInput={(e) => setBasics({ ...basics, phone: e.currentTarget.value })}
        autocomplete="off"
        hint="With its country code (+1 415 555 0123), or as written in the account's default country. Empty to remove it."
      />
      <Field
        id="contact-email"
        label="Email"
        inputMode="email"
        value={basics.email}
        onInput={(e) => setBasics({ ...basics, email: e.currentTarget.value })}
        autocomplete="off"
      />
      <fieldset>
        <legend>Custom fields</legend>
        {rows.length === 0 && <p class="current">None yet. Campaigns read them as {'{{custom.name}}'}.</p>}
        {rows.map((row, i) => (
          <div class="custom-field" key={i}>
            <div class="field">
              <label for={`custom-key-${i}`}>Field {i + 1}: name</label>
              <input
                id={`custom-key-${i}`}
                value={row.key}
                autocomplete="off"
                onInput={(e) => setRow(i, { key: e.currentTarget.value })}
              />
            </div>
            <div class="field">
              <label for={`custom-value-${i}`}>Field {i + 1}: value</label>
              <input
                id={`custom-value-${i}`}
                value={row.value}
                autocomplete="off"
                onInput={(e) => setRow(i, { value: e.currentTarget.value })}
              />
            </div>
            <button
              type="button"
              class="secondary"
              aria-label={`Remove field ${i + 1}${row.key ? ` (${row.key})` : ''}`}
              onClick={() => setRows(rows.filter((_, n) => n !== i))}
            >
              Remove
            </button>
          </div>
        ))}
        <button type="button" class="secondary" onClick={() => setRows([...rows, { key: '', value: '' }])}>
          Add a custom field
        </button>
      </fieldset>
      <Button type="submit" class="primary" unavailable={busy}>
        Save contact
      </Button>
      {conflict && (
        <div class="warning contact-conflict" role="alert">
          <p>
            {contactName(conflict.other)} has this {conflict.field} already
            {conflict.field === 'phone' ? ` (${conflict.other.phone})` : ` (${conflict.other.email})`}: a phone or an
            email belongs to one contact only.
          </p>
          <button type="button" class="link-button" onClick={() => props.onOpen(conflict.other.id)}>
            Open {contactName(conflict.other)}
          </button>
          {props.admin && (
            <Button type="button" class="secondary" unavailable={busy} onClick={() => void mergeAndSave(conflict)}>
              Merge {contactName(conflict.other)} into this contact and save
            </Button>
          )}
        </div>
      )}
      <FormStatus error={status.error} done={status.done} />
    </form>
  );
}
