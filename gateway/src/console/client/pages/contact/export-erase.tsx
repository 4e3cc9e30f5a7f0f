import { useState } from 'preact/hooks';
import type { Contact } from '../../answers.js';
import { call, get } from '../../api.js';
import { FormStatus } from '../../components/form.js';
import { contactName } from '../inbox/labels.js';
import { refusal } from './words.js';
import { Button } from '../../components/button.js';

/** The file an export is saved as: the contact's name where it makes a file name, and its id. */
const fileName = (c: Contact) => {
  const name = contactName(c)
    .normalize('NFKD')
    .replace(/[^\w-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `contact-${name ? `${name}-` : ''}${c.id}.json`;
};

/** GET /v1/contacts/{id}/export, saved as a JSON file: everything the account holds about the contact (owners, admins). */
export function ExportContact(props: { contact: Contact }) {
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<{ error?: string; done?: string }>({});
  const download = async () => {
    setBusy(true);
    const res = await get<unknown>(`/v1/contacts/${encodeURIComponent(props.contact.id)}/export`);
    setBusy(false);
    if (!res.ok) return setStatus({ error: refusal(res, 'export a contact') });
    const name = fileName(props.contact);
    const url = URL.createObjectURL(new Blob([JSON.stringify(res.data, null, 2)], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    setStatus({ done: `Downloaded ${name}.` });
  };
  return (
    <section class="contact-section" aria-labelledby="export-heading">
      <h3 id="export-heading">Export</h3>
      <p>
        Everything held about {contactName(props.contact)} as one JSON file: the contact, conversations and messages,
        files as links, lists, consent and webhook deliveries. For a person who asks for a copy of their data.
      </p>
      <Button type="button" class="secondary" unavailable={busy} onClick={() => void download()}>
        Download everything held (JSON)
      </Button>
      <FormStatus error={status.error} done={status.done} />
    </section>
  );
}

/**
 * DELETE /v1/contacts/{id}: erasure, once the contact's name is typed (owners, admins). Nothing of the contact is
 * kept but, for one who opted out, a hash of the address that keeps them opted out.
 */
export function EraseContact(props: { contact: Contact; onErased: () => void }) {
  const name = contactName(props.contact);
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const erase = async (e: SubmitEvent) => {
    e.preventDefault();
    if (typed.trim() !== name) return;
    setBusy(true);
    const res = await call('DELETE', `/v1/contacts/${encodeURIComponent(props.contact.id)}`);
    setBusy(false);
    if (!res.ok) return setError(refusal(res, 'erase a contact'));
    props.onErased();
  };
  return (
    <form class="contact-section contact-erase" aria-labelledby="erase-heading" onSubmit={erase}>
      <h3 id="erase-heading">Erase</h3>
      <p>
        Erasing removes {name} and everything held about them: conversations, messages, files, list memberships and
        webhook deliveries. Campaign counts stay, naming nobody. A contact who opted out stays opted out. This cannot be
        undone.
      </p>
      <div class="field">
        <label for="erase-name">
          Type <strong>{name}</strong> to confirm
        </label>
        <input
          id="erase-name"
          value={typed}
          autocomplete="off"
          spellcheck={false}
          onInput={(e) => setTyped(e.currentTarget.value)}
        />
      </div>
      <Button type="submit" class="danger" unavailable={busy} disabled={typed.trim() !== name}>
        Erase this contact
      </Button>
      <FormStatus error={error} />
    </form>
  );
}
