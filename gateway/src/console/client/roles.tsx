import type { Role } from '../../api-contract.js';

/** A role as the console names it. */
export const ROLE_LABEL: Record<Role, string> = { owner: 'Owner', admin: 'Admin', agent: 'Agent' };

/** What each role may do, in a line: the invite form and the members table say it. */
export const ROLE_DUTIES: Record<Role, string> = {
  owner: 'everything, and cannot be removed',
  admin: 'everything but the owner: settings, channels, campaigns, members',
  agent: 'the inbox, contacts and lists; reads campaigns and tries their bot',
};
