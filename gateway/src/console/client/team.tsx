import { useEffect } from 'preact/hooks';
import type { TeamMember } from './answers.js';
import { subscribe } from './live.js';
import { allPages } from './pages/lists/paged.js';

/** The whole team, owner first: every role may read it (the inbox names assignees from it). */
export const loadTeam = () => allPages<TeamMember>('/v1/members');

/** Told in this tab when the signed-in member changed the team themselves (the header's Away). */
const CHANGED_HERE = 'leadchat:team-changed';
export const teamChangedHere = () => window.dispatchEvent(new CustomEvent(CHANGED_HERE));

/**
 * Calls `read` whenever the team changes, for the pages that show it (Members, the inbox's assignee picker): here,
 * or elsewhere as the stream tells (`member.updated`, or a `reset` after it was down).
 */
export function useTeamNews(read: () => void): void {
  useEffect(() => {
    window.addEventListener(CHANGED_HERE, read);
    const unsubscribe = subscribe({ news: (e) => (e.event === 'member.updated' || e.event === 'reset') && read() });
    return () => {
      window.removeEventListener(CHANGED_HERE, read);
      unsubscribe();
    };
  }, []);
}

/** A date and time as the reader's locale writes them. */
export const dateTime = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
