import type { MemberRole, Role } from '../../api-contract.js';
import { allPages } from './pages/lists/paged.js';

/** A member of the account's team as GET /v1/members answers it; the owner is the first, always active. */
export interface TeamMember {
  id: string;
  email: string;
  name: string;
  role: Role;
  status: 'invited' | 'active';
  /** While an invitation's link is open: when it stops opening. */
  inviteExpiresAt: string | null;
  createdAt: string | null;
}

/** What inviting a member (POST /v1/members) or a new link (POST /v1/members/{id}/invite) answers: the link, shown this once. */
export interface Invitation extends TeamMember {
  role: MemberRole;
  inviteUrl: string;
  inviteExpiresAt: string;
}

/** The whole team, owner first: every role may read it (the inbox names assignees from it). */
export const loadTeam = () => allPages<TeamMember>('/v1/members');

/** A date and time as the reader's locale writes them. */
export const dateTime = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
