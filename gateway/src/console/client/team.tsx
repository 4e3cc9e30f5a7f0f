import type { TeamMember } from './answers.js';
import { allPages } from './pages/lists/paged.js';

/** The whole team, owner first: every role may read it (the inbox names assignees from it). */
export const loadTeam = () => allPages<TeamMember>('/v1/members');

/** A date and time as the reader's locale writes them. */
export const dateTime = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
