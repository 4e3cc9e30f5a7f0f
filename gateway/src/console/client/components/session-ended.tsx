import { createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { onSessionEnded, sessionHasEnded, signInAddress } from '../api.js';
import { signIn, type SessionInfo } from '../session.js';
import { Field, FormStatus } from './form.js';
import { Button } from './button.js';

/** Who is signed in on this page, and on which account: the member a prompt asks the password of. */
const SignedInSession = createContext<SessionInfo | undefined>(undefined);
export const SignedInAs = SignedInSession.Provider;

/**
 * Where the prompt can be reached: the page's, then one in each modal dialog open over it (components/dialog), the
 * page behind a modal dialog being inert. Only the last drawn, the one on top, shows.
 */
const places: object[] = [];
const placesMoved = new Set<() => void>();
function useOnTop(): boolean {
  const place = useRef({}).current;
  const [, redraw] = useState(0);
  useEffect(() => {
    const moved = () => redraw((n) => n + 1);
    places.push(place);
    placesMoved.add(moved);
    placesMoved.forEach((tell) => tell());
    return () => {
      places.splice(places.indexOf(place), 1);
      placesMoved.delete(moved);
      placesMoved.forEach((tell) => tell());
    };
  }, []);
  return places.at(-1) === place;
}

/**
 * When the session ends under a signed-in page (its time up, a password reset, a sign-out in another tab), the page
 * stays as it was and asks here, at the top of the screen, for the member's password, until this page or another
 * tab signs the browser in again: a reply or a campaign half typed is not lost to a move to the sign-in page, and
 * is sent as it stands once signed in. Focus stays where it was, so typing goes on into the field it was meant for;
 * the region is announced. Over a modal dialog (a contact's panel), the dialog asks, its edits kept the same way.
 */
export function SessionEnded() {
  const session = useContext(SignedInSession);
  const onTop = useOnTop();
  const [ended, setEnded] = useState(sessionHasEnded);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => onSessionEnded(setEnded), []);
  if (!ended || !onTop || !session) return null;
  const { member, account } = session;
  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    setBusy(true);
    // On this page's account: the same password may open another of the member's first.
    const res = await signIn(member.email, String(new FormData(form).get('again-password')), account.id);
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
