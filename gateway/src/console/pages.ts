/**
 * The console's pages, known to both the server (which serves them only to a signed-in user) and the browser app
 * (which draws them and their navigation). A new page is one entry here and one component in client/pages/.
 */
export const CONSOLE_BASE = '/console';
export const SIGN_IN_PATH = '/console/sign-in';

export interface ConsolePage {
  path: string;
  /** The page's heading, its navigation label and the start of its window title. */
  title: string;
  /** The group its navigation entry sits in. */
  section: 'Settings' | 'Campaigns' | 'Inbox' | 'Agency';
  /** Shown in the navigation to agency accounts only (the API refuses anyone else anyway). */
  agencyOnly?: true;
}

export const PAGES: readonly ConsolePage[] = [
  { path: '/console/settings/account', title: 'API key', section: 'Settings' },
  { path: '/console/settings/webhook', title: 'Custom Channel Webhook', section: 'Settings' },
  { path: '/console/settings/bot', title: 'Bot provider', section: 'Settings' },
  { path: '/console/settings/channels', title: 'Channels', section: 'Settings' },
  { path: '/console/campaigns', title: 'Campaigns', section: 'Campaigns' },
  { path: '/console/lists', title: 'Lists', section: 'Campaigns' },
  { path: '/console/funnel', title: 'Funnel', section: 'Campaigns' },
  { path: '/console/inbox', title: 'Inbox', section: 'Inbox' },
  { path: '/console/agency', title: 'Agency', section: 'Agency', agencyOnly: true },
];

/** Where a signed-in user lands, and where the bare /console address leads: the conversations waiting for the team. */
export const HOME_PATH = '/console/inbox';

/** Addresses that lead to another page: the console's to the Inbox, a section's address to its first page. */
export const REDIRECTS: Readonly<Record<string, string>> = {
  '/console': HOME_PATH,
  '/console/settings': PAGES[0]!.path,
};
