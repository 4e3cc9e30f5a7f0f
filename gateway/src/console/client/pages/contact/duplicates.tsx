import { useEffect, useState } from 'preact/hooks';
import { normalizeSearch } from '../../../../normal-form.js';
import type { Contact, PageOf } from '../../answers.js';
import { call, get } from '../../api.js';
import { ConfirmAction } from '../../components/confirm.js';
import { FormStatus } from '../../components/form.js';
import { contactName } from '../inbox/labels.js';
import { refusal } from './words.js';

/** The last digits two numbers of one person share, written once with and once without a country code or its 0. */
const PHONE_DIGITS = 8;
const digits = (phone: string) => phone.replace(/\D/g, '').slice(-PHONE_DIGITS);
const fullName = (c: Contact) => normalizeSearch(`${c.firstName} ${c.lastName}`);

/** Why another contact is likely the same person: the same name, email, or phone digits. */
export function likeness(c: Contact, other: Contact): string[] {
  const why: string[] = [];
  if (fullName(c) && fullName(c) === fullName(other)) why.push('same name');
  if (c.email && c.email.toLowerCase() === other.email.toLowerCase()) why.push('same email');
  if (c.phone && other.phone && digits(c.phone).length === PHONE_DIGITS && digits(c.phone) === digits(other.phone))
    why.push('same phone digits');
  return why;
}

/** The account's contacts likely to be this one, found with the contact search by name, email and phone digits. */
async function likelyDuplicates(
  c: Contact,
): Promise<{ found: Array<{ contact: Contact; why: string[] }>; error?: string }> {
  const queries = [fullName(c), c.email, c.phone ? digits(c.phone) : ''].filter((q) => q.length >= 2);
  const answers = await Promise.all(
    queries.map((q) => get<PageOf<Contact>>(`/v1/contacts?q=${encodeURIComponent(q)}&limit=20`)),
  );
  const seen = new Map<string, Contact>();
  for (const res of answers) for (const other of res.data?.data ?? []) if (other.id !== c.id) seen.set(other.id, other);
  const found = [...seen.values()]
    .map((other) => ({ contact: other, why: likeness(c, other) }))
    .filter((d) => d.why.length > 0);
  return { found, error: answers.find((a) => !a.ok)?.error };
}

/**
 * Owners and admins: the contacts likely to be this one, each merged into it after a confirmation
 * (POST /v1/contacts/{id}/merge): the other's conversations, messages, lists and external IDs come here, it is gone.
 */
export function Duplicates(props: { contact: Contact; onMerged: () => void; onOpen: (id: string) => void }) {
  const { contact } = props;
  const [found, setFound] = useState<Awaited<ReturnType<typeof likelyDuplicates>> | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<{ error?: string; done?: string }>({});
  useEffect(() => void likelyDuplicates(contact).then(setFound), [contact]);
  const merge = async (other: Contact) => {
    setBusy(true);
    const res = await mergeInto(contact.id, other.id);
    setBusy(false);
    setStatus(
      res.ok
        ? { done: `${contactName(other)} was merged into this contact.` }
        : { error: refusal(res, 'merge contacts') },
    );
    if (res.ok) props.onMerged();
  };
  return (
    <section class="contact-section" aria-labelledby="duplicates-heading">
      <h3 id="duplicates-heading">Likely duplicates</h3>
      {!found ? (
        <p role="status">Looking for contacts with the same name, email or phone…</p>
      ) : found.found.length === 0 ? (
        <p class="current">No other contact has the same name, email or phone digits.</p>
      ) : (
        <ul class="duplicates">
          {found.found.map(({ contact: other, why }) => (
            <li key={other.id}>
              <p>
                <button type="button" class="link-button" onClick={() => props.onOpen(other.id)}>
                  {contactName(other)}
                </button>{' '}
                <span class="current">{[other.phone, other.email].filter(Boolean).join(' · ')}</span>
                <br />
                <span class="duplicate-why">{why.join(', ')}</span>
              </p>
              <ConfirmAction
                label="Merge into this contact"
                name={`Merge ${contactName(other)} into this contact`}
                confirmLabel="Merge"
                busy={busy}
                warning={`${contactName(other)}'s conversations, messages, lists and external IDs move to ${contactName(contact)}, and ${contactName(other)} is gone. This cannot be undone.`}
                onConfirm={() => merge(other)}
              />
            </li>
          ))}
        </ul>
      )}
      {found?.error && (
        <p class="error" role="alert">
          {found.error}
        </p>
      )}
      <FormStatus error={status.error} done={status.done} />
    </section>
  );
}

export const mergeInto = (keep: string, other: string) =>
  call<Contact>('POST', `/v1/contacts/${encodeURIComponent(keep)}/merge`, { contactId: other });
