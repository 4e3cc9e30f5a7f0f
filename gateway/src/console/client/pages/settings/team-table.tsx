import { MEMBER_ROLES, type MemberRole } from '../../../../api-contract.js';
import type { Invitation, TeamMember } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { AppliedChoice } from '../../components/applied-choice.js';
import { ConfirmAction } from '../../components/confirm.js';
import { FormStatus } from '../../components/form.js';
import { ROLE_LABEL } from '../../roles.js';
import { dateTime } from '../../team.js';
import { Button } from '../../components/button.js';

/**
 * Whether an invitation is open, and until when; or that its link expired and a new one is needed; and whether the
 * member is away (round robin passes them by).
 */
function statusOf(m: TeamMember, at: number): string {
  const away = m.availability === 'away' ? '; away' : '';
  return `${invitationOf(m, at)}${away}`;
}

function invitationOf(m: TeamMember, at: number): string {
  const open = m.inviteExpiresAt && Date.parse(m.inviteExpiresAt) > at;
  if (m.status === 'active')
    return m.inviteExpiresAt && open ? `Active; a new link opens until ${dateTime(m.inviteExpiresAt)}` : 'Active';
  if (!m.inviteExpiresAt) return 'Invited';
  return open
    ? `Invited; the link opens until ${dateTime(m.inviteExpiresAt)}`
    : `Invited; the link expired ${dateTime(m.inviteExpiresAt)}: send a new one`;
}

const path = (m: TeamMember) => `/v1/members/${encodeURIComponent(m.id)}`;

/**
 * The team, owner first: each member's role changed in place (PATCH /v1/members/{id}), a new invitation link
 * (POST /v1/members/{id}/invite), or removed after a confirmation (DELETE /v1/members/{id}). The owner stays as is.
 * Anyone but the one signed in is set away or available (PUT /v1/members/{id}/availability).
 */
export function TeamTable(props: {
  team: TeamMember[];
  me: string;
  onChanged: () => void;
  onLink: (invitation: Invitation) => void;
}) {
  const acting = useAction({ role: 'Role' });
  const setRole = (m: TeamMember, role: MemberRole) =>
    acting.run(
      () => call<TeamMember>('PATCH', path(m), { role }),
      `${m.name} is now ${role === 'admin' ? 'an admin' : 'an agent'}.`,
      props.onChanged,
    );
  const newLink = (m: TeamMember) =>
    void acting.run(
      () => call<Invitation>('POST', `${path(m)}/invite`),
      `A new link for ${m.name} is shown above; any earlier link no longer opens.`,
      props.onLink,
    );
  // For a colleague who forgot before leaving, or came back: their own is the frame's Away button.
  const setAvailability = (m: TeamMember, availability: 'away' | 'available') =>
    void acting.run(
      () => call<TeamMember>('PUT', `${path(m)}/availability`, { availability }),
      availability === 'away'
        ? `${m.name} is away: hand-offs go to others, and those waiting for ${m.name} went to the team.`
        : `${m.name} is available: hand-offs come to ${m.name} in turn again.`,
      props.onChanged,
    );
  const remove = (m: TeamMember) =>
    acting.run(() => call('DELETE', path(m)), `${m.name} is no longer on the team.`, props.onChanged);
  const at = Date.now();
  return (
    <>
      <div class="table-scroll" role="region" aria-label="Table of the team" tabIndex={0}>
        <table class="team">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {props.team.map((m) => (
              <tr key={m.id} data-member={m.id}>
                <td>
                  {m.name}
                  {m.id === props.me && ' (you)'}
                </td>
                <td>{m.email}</td>
                <td>
                  {m.role === 'owner' ? (
                    ROLE_LABEL.owner
                  ) : (
                    <AppliedChoice
                      label={`Role of ${m.name}`}
                      value={m.role}
                      apply="Save role"
                      applyName={`Save the role of ${m.name}`}
                      busy={acting.busy}
                      onApply={(role) => setRole(m, role as MemberRole)}
                    >
                      {MEMBER_ROLES.map((role) => (
                        <option key={role} value={role}>
                          {ROLE_LABEL[role]}
                        </option>
                      ))}
                    </AppliedChoice>
                  )}
                </td>
                <td>{statusOf(m, at)}</td>
                <td>
                  {m.id !== props.me && (
                    <Button
                      type="button"
                      class="secondary"
                      unavailable={acting.busy}
                      onClick={() => setAvailability(m, m.availability === 'away' ? 'available' : 'away')}
                      aria-label={`${m.availability === 'away' ? 'Set available' : 'Set away'}: ${m.name}`}
                    >
                      {m.availability === 'away' ? 'Set available' : 'Set away'}
                    </Button>
                  )}
                  {m.role === 'owner' ? (
                    'Cannot be removed'
                  ) : (
                    <>
                      <Button
                        type="button"
                        class="secondary"
                        unavailable={acting.busy}
                        onClick={() => newLink(m)}
                        aria-label={`New link for ${m.name}`}
                      >
                        New link
                      </Button>
                      <ConfirmAction
                        label="Remove"
                        name={`Remove ${m.name}`}
                        confirmLabel="Remove from the team"
                        danger
                        busy={acting.busy}
                        onConfirm={() => remove(m)}
                        warning={`${m.name} is signed out at once and can no longer sign in; their conversations become unassigned.`}
                      />
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <FormStatus error={acting.error} done={acting.done} />
    </>
  );
}
