import { useState } from 'preact/hooks';
import type { Contact, ListAddition } from '../../answers.js';
import { call } from '../../api.js';
import { Field, FormStatus, Panel } from '../../components/form.js';
import { errorText, type FieldLabels } from '../../components/problems.js';
import { phoneHint, useDefaultCountry } from '../../default-country.js';
import { Button } from '../../components/button.js';

/** The form's labels, by the fields of POST /v1/contacts (and contactId of POST /v1/lists/{id}/contacts). */
const LABELS: FieldLabels = {
  firstName: 'First name',
  lastName: 'Last name',
  phone: 'Phone',
  email: 'Email',
  externalIds: 'External ID',
  'externalIds.*': 'External ID',
  contactId: 'Contact',
};

/**
 * A contact added by hand: POST /v1/contacts (which finds the contact when the phone, the email or the external ID
 * is known already), then POST /v1/lists/{id}/contacts. The API's refusal (INVALID_PHONE and the like) is shown
 * by the form's labels, every problem at once. A name typed beside the phone of another person's contact stops
 * there, saying whose phone it is and how to add the person.
 */
const fullName = (first: unknown, last: unknown) =>
  [first, last]
    .map((p) => String(p ?? '').trim())
    .filter(Boolean)
    .join(' ');

/**
 * One phone is one contact (as one email is, for a contact known by its email alone): a name typed for a phone (or
 * email) that another person's contact holds would only add that person to the list. What to say instead, with how
 * to add the new person; undefined when the names do not tell two people apart.
 */
function namesake(typed: Record<string, unknown>, found: Contact): string | undefined {
  const given = fullName(typed.firstName, typed.lastName);
  const theirs = fullName(found.firstName, found.lastName);
  // Another person only when a part both give differs: "Ann" is "Ann Smith", "Mia Lee" is not "Noah Lee".
  const parts = [
    [typed.firstName, found.firstName],
    [typed.lastName, found.lastName],
  ].map(([a, b]) => [
    String(a ?? '')
      .trim()
      .toLowerCase(),
    String(b ?? '')
      .trim()
      .toLowerCase(),
  ]);
  if (parts.every(([a, b]) => !a || !b || a === b)) return undefined;
  const by =
    typed.phone && found.phone
      ? `The phone ${found.phone} is ${theirs}’s`
      : typed.email && found.email
        ? `The email ${found.email} is ${theirs}’s`
        : `That external ID is ${theirs}’s`;
  return (
    `${by}: one phone (or email) is one contact, so ${given} would be ${theirs} and was not added. ` +
    `To add ${given} as a contact of their own, give their own phone number, or leave the phone empty and give their own email ` +
    `(a contact without a phone gets no SMS or WhatsApp). To add ${theirs} to the list, type ${theirs}’s name or leave the name empty.`
  );
}

export function AddContactPanel(props: { listId: string; onAdded: () => void }) {
  const country = useDefaultCountry();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ error?: string; done?: string }>({});
  const add = (e: SubmitEvent) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    const contact: Record<string, unknown> = Object.fromEntries(
      [
        ['firstName', text('add-first-name')],
        ['lastName', text('add-last-name')],
        ['phone', text('add-phone')],
        ['email', text('add-email')],
      ].filter(([, v]) => v),
    );
    const [label, externalId] = [text('add-channel-label'), text('add-external-id')];
    if (externalId && !label)
      return setOutcome({
        error: 'Custom channel label: name the channel the external ID belongs to, such as livechat',
      });
    if (externalId) contact.externalIds = { [label]: externalId };
    setBusy(true);
    setOutcome({});
    void (async () => {
      const created = await call<Contact>('POST', '/v1/contacts', contact);
      const c = created.data;
      const other = created.ok && created.status === 200 && c ? namesake(contact, c) : undefined;
      if (other) {
        setBusy(false);
        return setOutcome({ error: other });
      }
      const joined =
        created.ok && c
          ? await call<ListAddition>('POST', `/v1/lists/${encodeURIComponent(props.listId)}/contacts`, {
              contactId: c.id,
            })
          : created;
      setBusy(false);
      if (!joined.ok || !c) return setOutcome({ error: errorText(joined, LABELS) });
      const who = `${c.firstName} ${c.lastName}`.trim() || c.phone || c.email;
      setOutcome({
        done: (joined.data as ListAddition).added ? `${who} was added to the list.` : `${who} is in the list already.`,
      });
      form.reset();
      props.onAdded();
    })();
  };
  return (
    <Panel title="Add a contact" id="add-contact-heading">
      <form onSubmit={add}>
        <div class="inline-fields">
          <Field id="add-first-name" label="First name" autocomplete="off" />
          <Field id="add-last-name" label="Last name" autocomplete="off" />
        </div>
        <div class="inline-fields">
          <Field
            id="add-phone"
            label="Phone"
            type="tel"
            autocomplete="off"
            placeholder={country ? undefined : '+14155550123'}
            hint={`${phoneHint(country)} A phone, an email or an external ID is needed.`}
          />
          <Field id="add-email" label="Email" inputMode="email" autocomplete="off" />
        </div>
        <div class="inline-fields">
          <Field
            id="add-external-id"
            label="External ID"
            autocomplete="off"
            hint="The contact's ID in the system behind a custom channel, such as a live chat's visitor ID."
          />
          <Field
            id="add-channel-label"
            label="Custom channel label"
            autocomplete="off"
            placeholder="livechat"
            hint="The label of that custom channel, as its campaign names it."
          />
        </div>
        <Button type="submit" class="primary" unavailable={busy}>
          Add to the list
        </Button>
      </form>
      <FormStatus error={outcome.error} done={outcome.done} />
    </Panel>
  );
}
