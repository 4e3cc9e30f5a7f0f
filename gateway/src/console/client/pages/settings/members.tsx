import { useEffect, useState } from 'preact/hooks';
import type { Invitation, TeamMember } from '../../answers.js';
import { Panel } from '../../components/form.js';
import { Loading } from '../../components/load.js';
import { PageTitle } from '../../components/shell.js';
import { Link } from '../../router.js';
import type { SessionInfo } from '../../session.js';
import { loadTeam, useTeamNews } from '../../team.js';
import { InviteLinkPanel, InvitePanel } from './member-invite.js';
import { TeamTable } from './team-table.js';

/**
 * The account's team (GET /v1/members): who is on it with their role and whether they accepted their invitation;
 * invitations, roles, new links and removals, for admins and the owner.
 */
export function MembersPage({ session }: { session: SessionInfo }) {
  const [team, setTeam] = useState<TeamMember[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [invitation, setInvitation] = useState<Invitation | undefined>(undefined);
  const reload = async () => {
    const res = await loadTeam();
    setError(res.error);
    if (res.error) return;
    setTeam(res.items);
    // A link shown for a member just removed opens nothing any more.
    setInvitation((shown) => (shown && res.items.some((m) => m.id === shown.id) ? shown : undefined));
  };
  useEffect(() => void reload(), []);
  useTeamNews(() => void reload());
  const showLink = (i: Invitation) => {
    setInvitation(i);
    void reload();
  };
  return (
    <>
      <PageTitle>Members</PageTitle>
      <InvitePanel onInvited={showLink} />
      {invitation && <InviteLinkPanel invitation={invitation} />}
      <Panel title="Your team" id="team-heading">
        {team ? (
          <TeamTable team={team} me={session.member.id} onChanged={() => void reload()} onLink={showLink} />
        ) : (
          <Loading error={error} />
        )}
        <p class="hint">
          Conversations the bot hands over can go to the agents in turn: see{' '}
          <Link href="/console/settings/bot">Bot provider</Link>.
        </p>
      </Panel>
    </>
  );
}
