import { useEffect, useState } from 'preact/hooks';
import type { Role } from '../../../api-contract.js';
import { HOME_PATH, SIGN_IN_PATH } from '../../pages.js';
import { call, get, type ApiResult } from '../api.js';
import { Field, FormStatus } from '../components/form.js';
import { errorText } from '../components/problems.js';
import { ROLE_LABEL } from '../roles.js';
import { Button } from '../components/button.js';

/** What GET /console/api/invites/{token} tells whoever holds the link. */
interface InvitationView {
  account: { name: string };
  member: { name: string; email: string; role: Role; status: 'invited' | 'active' };
  expiresAt: string;
}

const path = (token: string) => `/console/api/invites/${encodeURIComponent(token)}`;

/**
 * Where an invitation's link leads (/console/invite#<token>): the token is in the fragment, so it reaches neither a
 * server log nor a Referer. The invited member sees whose team it is, sets a password (typed twice: nobody can tell
 * them it was mistyped later) and is signed in; an expired or used link says so and who makes a new one.
 */
export function AcceptInvite() {
  const [token] = useState(() => decodeURIComponent(location.hash.slice(1)));
  const [invitation, setInvitation] = useState<ApiResult<InvitationView> | undefined>(undefined);
  useEffect(() => {
    document.title = 'Join your team · LeadChat console';
    if (!token) setInvitation({ ok: false, status: 404 });
    else void get<InvitationView>(path(token)).then(setInvitation);
  }, [token]);
  return (
    <main class="sign-in" id="main">
      {!invitation ? (
        <p role="status">Opening the invitation…</p>
      ) : invitation.ok ? (
        <PasswordForm token={token} invitation={invitation.data!} />
      ) : (
        <NotOpened res={invitation} />
      )}
    </main>
  );
}

/** A link that no longer opens: expired (410), or used, replaced or never valid (404); or the gateway out of reach. */
function NotOpened(props: { res: ApiResult<InvitationView> }) {
  const { status, error } = props.res;
  const heading =
    status === 410
      ? 'This invitation has expired'
      : status === 404
        ? 'This invitation link does not open'
        : 'The invitation could not be opened';
  const why = status === 404 && !error ? 'This address holds no invitation: open the whole link you were sent.' : error;
  return (
    <>
      <h1>{heading}</h1>
      <p class="error" role="alert">
        {why}
      </p>
      {status === 410 || status === 404 ? (
        <p>
          Ask the account's owner or an admin for a new link: they make one on the Members page. Already set your
          password? <a href={SIGN_IN_PATH}>Sign in</a>.
        </p>
      ) : (
        <p>Try the link again in a moment.</p>
      )}
    </>
  );
}

function PasswordForm(props: { token: string; invitation: InvitationView }) {
  const { account, member, expiresAt } = props.invitation;
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const password = String(form.get('invite-password'));
    if (password !== String(form.get('invite-password-again')))
      return setError('The two passwords differ: type the same password in both fields.');
    setBusy(true);
    const res = await call('POST', path(props.token), { password });
    // Signed in: the link is used up, so it is left out of the history too.
    if (res.ok) return location.replace(HOME_PATH);
    setBusy(false);
    setError(errorText(res, { password: 'Password' }));
  };
  return (
    <>
      {member.status === 'active' ? (
        <>
          <h1>A new password for {account.name}</h1>
          <p>
            {member.name}, this link sets a new password for your sign-in ({member.email}) to the LeadChat console of{' '}
            <span class="value">{account.name}</span>. It opens until {new Date(expiresAt).toLocaleString()}.
          </p>
        </>
      ) : (
        <>
          <h1>
            Join {account.name} as {member.name}
          </h1>
          <p>
            You are invited to the LeadChat console of <span class="value">{account.name}</span> as an{' '}
            {ROLE_LABEL[member.role].toLowerCase()}. Choose the password you will sign in with, with your email. The
            link opens until {new Date(expiresAt).toLocaleString()}.
          </p>
        </>
      )}
      <form onSubmit={submit} aria-describedby="invite-status" noValidate>
        <Field id="invite-email" label="Email" type="email" value={member.email} readOnly autocomplete="username" />
        <Field
          id="invite-password"
          label="Password"
          type="password"
          autocomplete="new-password"
          hint="At least 12 characters."
        />
        <Field id="invite-password-again" label="Password again" type="password" autocomplete="new-password" />
        <Button type="submit" class="primary" unavailable={busy}>
          {busy ? 'Saving…' : member.status === 'active' ? 'Set the new password' : `Join ${account.name}`}
        </Button>
        <div id="invite-status">
          <FormStatus error={error} />
        </div>
      </form>
    </>
  );
}
