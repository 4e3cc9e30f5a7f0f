import { canAct, type Role } from '../api-contract.js';

/**
 * The console's pages, known to both the server (which serves them only to a signed-in user, and refuses those of
 * a higher role) and the browser app (which draws them and their navigation). A new page is one entry here and one
 * component in client/pages/.
 */
export const CONSOLE_BASE = '/console';
export const SIGN_IN_PATH = '/console/sign-in';
/** Where an invitation's link leads: served without a session, like the sign-in page. */
export { INVITE_PATH } from '../api-contract.js';

export interface ConsolePage {
  path: string;
  /** The page's heading, its navigation label and the start of its window title. */
  title: string;
  /** The group its navigation entry sits in. */
  section: 'Settings' | 'Campaigns' | 'Inbox' | 'Account' | 'Agency';
  /** Shown in the navigation to agency accounts only (the API refuses anyone else anyway). */
  agencyOnly?: true;
  /** The least role that opens it (the API refuses the others what the page does); absent: every role. */
  least?: 'admin';
}

export const PAGES: readonly ConsolePage[] = [
  { path: '/console/settings/account', title: 'Account', section: 'Settings', least: 'admin' },
  { path: '/console/settings/webhook', title: 'Custom Channel Webhook', section: 'Settings', least: 'admin' },
  { path: '/console/settings/bot', title: 'Bot provider', section: 'Settings', least: 'admin' },
  { path: '/console/settings/channels', title: 'Channels', section: 'Settings', least: 'admin' },
  { path: '/console/settings/members', title: 'Members', section: 'Settings', least: 'admin' },
  // Every member saves replies for the team: the one page of Settings an agent opens.
  { path: '/console/settings/saved-replies', title: 'Saved replies', section: 'Settings' },
  // Who changed what: as the audit log's API, the owner's and admins'.
  { path: '/console/settings/activity', title: 'Activity', section: 'Settings', least: 'admin' },
  { path: '/console/campaigns', title: 'Campaigns', section: 'Campaigns' },
  { path: '/console/lists', title: 'Lists', section: 'Campaigns' },
  { path: '/console/funnel', title: 'Funnel', section: 'Campaigns' },
  { path: '/console/inbox', title: 'Inbox', section: 'Inbox' },
  { path: '/console/credits', title: 'Credits', section: 'Account' },
  { path: '/console/agency', title: 'Agency', section: 'Agency', agencyOnly: true, least: 'admin' },
];

/** Whether a role may open a page: the server answers 403 to any other, and the navigation leaves it out. */
export const mayOpen = (page: ConsolePage, role: Role): boolean => page.least === undefined || canAct(role, page.least);

/** Where a signed-in user lands, and where the bare /console address leads: the conversations waiting for the team. */
export const HOME_PATH = '/console/inbox';

/** Addresses that lead to another page: the console's to the Inbox, a section's address to its first page. */
export const REDIRECTS: Readonly<Record<string, string>> = {
  '/console': HOME_PATH,
  '/console/settings': PAGES[0]!.path,
};
