import { useEffect, useState } from 'preact/hooks';
import { CONSOLE_BASE, HOME_PATH } from '../../pages.js';
import { Field, FormStatus } from '../components/form.js';
import { signIn } from '../session.js';
import { Button } from '../components/button.js';

/** Only a console address is followed after sign-in, so a crafted link cannot send the user to another site. */
function nextPage(): string {
  const next = new URLSearchParams(location.search).get('next') ?? '';
  // A console path, with the plain query a page keeps its state in (?c=…): nothing that could lead off the site.
  return /^\/console(\/[\w\-/]*)?(\?[\w\-=&%.]*)?$/.test(next) && next.startsWith(CONSOLE_BASE) ? next : HOME_PATH;
}

export function SignIn() {
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  useEffect(() => void (document.title = 'Sign in · LeadChat console'), []);
  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    const res = await signIn(String(form.get('email')), String(form.get('password')));
    if (res.ok) return location.assign(nextPage());
    setBusy(false);
    setError(res.error);
  };
  return (
    <main class="sign-in" id="main">
      <h1>Sign in to LeadChat</h1>
      <form onSubmit={submit} aria-describedby="sign-in-status">
        <Field id="email" label="Email" type="email" autocomplete="username" required />
        <Field id="password" label="Password" type="password" autocomplete="current-password" required />
        <Button type="submit" class="primary" unavailable={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </Button>
        <div id="sign-in-status">
          <FormStatus error={error} />
        </div>
      </form>
      <p class="hint">
        No password yet? A team member sets theirs through the invitation link an admin sends them; the account's owner
        gets theirs from the gateway's operator (<code>leadchat-gateway account password</code>).
      </p>
    </main>
  );
}
