import { useState } from 'preact/hooks';
import { HOME_PATH } from '../../pages.js';
import { leaveFor } from '../api.js';
import { signIn, type SessionInfo } from '../session.js';
import { Dialog } from './dialog.js';
import { Field, FormStatus } from './form.js';
import { Button } from './button.js';

/**
 * Another of the person's accounts, chosen among those their password opened too (SessionInfo.otherAccounts). The
 * password is asked again, nothing filled in: a console left open on a desk opens no other account. It is a sign-in
 * like any (refused alike, under the same limits); once it opens, the session there replaces this one, in every tab
 * of the browser, and the page leaves for that account's Inbox. Refused, this session goes on as it was.
 */
export function SwitchAccount(props: { session: SessionInfo; onClose: () => void }) {
  const { member, otherAccounts } = props.session;
  const [chosen, setChosen] = useState(otherAccounts[0]?.id);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    const password = String(new FormData(e.currentTarget as HTMLFormElement).get('switch-password'));
    setBusy(true);
    const res = await signIn(member.email, password, chosen);
    if (res.ok) return leaveFor(HOME_PATH);
    setBusy(false);
    setError(res.error);
  };
  return (
    <Dialog labelledBy="switch-heading" class="switch-account" onClose={props.onClose}>
      <h2 id="switch-heading">Switch account</h2>
      <form onSubmit={submit} aria-describedby="switch-status">
        <fieldset>
          <legend>Account</legend>
          {otherAccounts.map((a) => (
            <label class="choice" key={a.id}>
              <input
                type="radio"
                name="switch-account"
                value={a.id}
                checked={chosen === a.id}
                onChange={() => setChosen(a.id)}
              />
              {a.name}
            </label>
          ))}
        </fieldset>
        <Field
          id="switch-password"
          label="Password"
          type="password"
          autocomplete="current-password"
          required
          hint={`The password of ${member.email} on that account.`}
        />
        <Button type="submit" class="primary" unavailable={busy}>
          {busy ? 'Switching…' : 'Switch'}
        </Button>
        <div id="switch-status">
          <FormStatus error={error} />
        </div>
      </form>
    </Dialog>
  );
}
