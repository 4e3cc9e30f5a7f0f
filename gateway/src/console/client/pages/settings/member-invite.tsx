import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { MEMBER_ROLES, type MemberRole } from '../../../../api-contract.js';
import type { Invitation } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { Copyable, Field, FormStatus, Panel } from '../../components/form.js';
import { ROLE_DUTIES, ROLE_LABEL } from '../../roles.js';
import { dateTime } from '../../team.js';
import { Button } from '../../components/button.js';

const LABELS = { email: 'Email', name: 'Name', role: 'Role' };

/**
 * The roles a member is invited as, the default first: most of a team answers the inbox, and an admin is chosen on
 * purpose. First in the list, Agent is what the form holds however the browser picks a select's first value.
 */
const INVITE_ROLES: readonly MemberRole[] = ['agent', ...MEMBER_ROLES.filter((role) => role !== 'agent')];

/**
 * POST /v1/members: a new member of the team, invited by a link the answer holds. The gateway sends no email: the
 * admin passes the link on (InviteLinkPanel shows it).
 */
export function InvitePanel(props: { onInvited: (invitation: Invitation) => void }) {
  const inviting = useAction(LABELS);
  // A new key empties the form once a member is invited.
  const [version, setVersion] = useState(0);
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const body = {
      email: String(form.get('invite-email')).trim(),
      name: String(form.get('invite-name')).trim(),
      role: String(form.get('invite-role')),
    };
    void inviting.run(
      () => call<Invitation>('POST', '/v1/members', body),
      (m) => `${m.name} is invited as ${m.role === 'admin' ? 'an admin' : 'an agent'}: send them the link below.`,
      (m) => {
        setVersion(version + 1);
        props.onInvited(m);
      },
    );
  };
  return (
    <Panel title="Invite a team member" id="invite-heading">
      <form onSubmit={submit} key={version} noValidate class="inline-form">
        <Field id="invite-email" label={LABELS.email} type="email" autocomplete="off" />
        <Field id="invite-name" label={LABELS.name} autocomplete="off" hint="Shown on their replies in the inbox." />
        <div class="field">
          <label for="invite-role">{LABELS.role}</label>
          <select id="invite-role" name="invite-role" aria-describedby="invite-role-hint">
            {INVITE_ROLES.map((role) => (
              <option key={role} value={role} selected={role === 'agent'}>
                {ROLE_LABEL[role]}
              </option>
            ))}
          </select>
        </div>
        <Button type="submit" class="primary" unavailable={inviting.busy}>
          Invite
        </Button>
      </form>
      <p class="hint" id="invite-role-hint">
        Agent: {ROLE_DUTIES.agent}. Admin: {ROLE_DUTIES.admin}.
      </p>
      <FormStatus error={inviting.error} done={inviting.done} />
    </Panel>
  );
}

/**
 * An invitation's link, shown once: the gateway keeps only its digest. Focus goes to it when it appears, wherever
 * on the page it was asked for (the form, or a member's New link).
 */
export function InviteLinkPanel(props: { invitation: Invitation }) {
  const box = useRef<HTMLDivElement>(null);
  const { invitation } = props;
  useLayoutEffect(() => {
    box.current?.querySelector('input')?.focus();
  }, [invitation.inviteUrl]);
  return (
    <section class="panel" aria-labelledby="invite-link-heading">
      <h2 id="invite-link-heading">Invitation to send</h2>
      <div class="new-secret" ref={box}>
        <Copyable
          id="invite-link"
          label="Invitation link"
          value={invitation.inviteUrl}
          hint={
            <>
              For <span class="value">{invitation.name}</span> ({invitation.email}). Send it to them yourself: it is
              shown only now, opens once, until {dateTime(invitation.inviteExpiresAt)}, and lets them set their
              password. A new link replaces it.
            </>
          }
        />
      </div>
    </section>
  );
}
