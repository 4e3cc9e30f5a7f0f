import { useEffect, useState } from 'preact/hooks';
import { onSessionEnded, signInAddress } from '../api.js';
import { signIn, type SessionInfo } from '../session.js';
import { Field, FormStatus } from './form.js';
import { Button } from './button.js';

/**
 * When the session ends under a signed-in page (its time up, a password reset, a sign-out in another tab), the page
 * stays as it was and asks here, at the top of the screen, for the member's password, until this page or another
 * tab signs the browser in again: a reply or a campaign half typed is not lost to a move to the sign-in page, and
 * is sent as it stands once signed in. Focus stays where it was, so typing goes on into the field it was meant for;
 * the region is announced.
 */
export function SessionEnded(props: { member: SessionInfo['member'] }) {
  const { member } = props;
  const [ended, setEnded] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => onSessionEnded(setEnded), []);
  if (!ended) return null;
  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    setBusy(true);
    const res = await signIn(member.email, String(new FormData(form).get('again-password')));
    setBusy(false);
    if (!res.ok) return setError(res.error);
    // Signed in as the same member, the page goes on (the banner goes); anyone else sees the console as theirs.
    if (res.data?.member.id !== member.id) return location.reload();
    setError(undefined);
  };
  return (
    <section class="session-ended" aria-label="Sign in again">
      <p role="alert">
        Your session has ended. Sign in again as {member.email} to go on: what you typed on this page stays.
      </p>
      <form onSubmit={submit}>
        <Field id="again-password" label="Password" type="password" autocomplete="current-password" required />
        <Button type="submit" class="primary" unavailable={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </Button>
        <FormStatus error={error} />
      </form>
      <p>
        <a href={signInAddress()}>Sign in as someone else</a>
      </p>
    </section>
  );
}
