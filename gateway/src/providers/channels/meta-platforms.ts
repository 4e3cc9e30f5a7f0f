import type { InstagramCredentials, MessengerCredentials } from '../../domain/channel-credentials.js';
import type { MetaChannel } from '../../engine/ports/channel-provider.js';

/**
 * Messenger and Instagram Direct: one Send API and one webhook shape (`entry[].messaging[]`) for both, told apart by
 * the account that sends, its token, the webhook's `object` and a few codes and limits.
 */

/** The credentials each Meta messaging channel sends with. */
export interface MetaMessagingCredentials {
  messenger: MessengerCredentials;
  instagram: InstagramCredentials;
}

export interface MetaMessagingOptions {
  apiUrl: string;
  timeoutMs: number;
}

export interface Platform {
  name: string;
  /** The webhook's `object` for this platform. */
  object: string;
  /** The name of a webhook of this platform, for the 400 of another one. */
  webhook: string;
  /** What Meta calls a contact's id here, for messages that name it. */
  userId: string;
  /** The token's name in the sentence of an expired one. */
  token: string;
  /** Meta's codes that mean "not now" here, beside the Graph API's shared ones: unknown errors (1), rate limits. */
  retryableCodes: ReadonlySet<number>;
}

export const PLATFORMS: Record<MetaChannel, Platform> = {
  messenger: {
    name: 'Messenger',
    object: 'page',
    webhook: 'a Messenger webhook',
    userId: 'a Page-scoped id (PSID)',
    token: 'The Page access token',
    retryableCodes: new Set([1, 80006]),
  },
  instagram: {
    name: 'Instagram',
    object: 'instagram',
    webhook: 'an Instagram webhook',
    userId: 'an Instagram-scoped id (IGSID)',
    token: 'The Instagram access token',
    retryableCodes: new Set([1, 80002]),
  },
};

/** The account that sends on the channel (a Page, an Instagram professional account) and its access token. */
export function sendingAccount<C extends MetaChannel>(
  channel: C,
  c: MetaMessagingCredentials[C],
): { accountId: string; token: string } {
  if (channel === 'messenger') {
    const m = c as MessengerCredentials;
    return { accountId: m.pageId, token: m.pageAccessToken };
  }
  const i = c as InstagramCredentials;
  return { accountId: i.instagramAccountId, token: i.accessToken };
}

/** Meta's user ids (PSID, IGSID) are digits; anything else cannot name a contact there. */
export const USER_ID = /^\d{1,30}$/;

export const apiBase = (apiUrl: string) => apiUrl.replace(/\/+$/, '');
