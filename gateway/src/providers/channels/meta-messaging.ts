import { storableText, excerpt } from '../../domain/storable-text.js';
import { textTooLong } from '../../domain/text-limits.js';
import {
  ChannelError,
  type ChannelProvider,
  type MetaChannel,
  type MetaProfile,
} from '../../engine/ports/channel-provider.js';
import { graphError, str } from './meta-graph.js';
import {
  apiBase,
  PLATFORMS,
  sendingAccount,
  USER_ID,
  type MetaMessagingCredentials,
  type MetaMessagingOptions,
} from './meta-platforms.js';
import { readProviderJson } from './provider-file.js';
import { postToProvider } from './provider-request.js';

export type { MetaMessagingCredentials, MetaMessagingOptions } from './meta-platforms.js';
export { parseMetaMessagingWebhook, type MetaMessagingWebhook } from './meta-messaging-webhook.js';

/**
 * Sends text on Messenger or Instagram through the Send API: as an answer inside the 24-hour window (RESPONSE), or
 * with the HUMAN_AGENT tag when a person answers later. Text over the platform's limit (domain/text-limits.ts) is
 * refused, not split.
 */
export function createMetaMessagingProvider<C extends MetaChannel>(
  channel: C,
  c: MetaMessagingCredentials[C],
  options: MetaMessagingOptions,
): ChannelProvider {
  const platform = PLATFORMS[channel];
  const { accountId, token } = sendingAccount(channel, c);
  const endpoint = `${apiBase(options.apiUrl)}/${accountId}/messages`;
  return {
    name: channel,
    async send(message) {
      if (message.channel !== channel)
        throw new ChannelError(
          `The ${platform.name} channel sends ${platform.name} messages only, not ${message.channel}`,
          false,
        );
      if (message.template) throw new ChannelError(`${platform.name} has no message templates: send text`, false);
      if (!USER_ID.test(message.to))
        throw new ChannelError(`"${excerpt(message.to, 40)}" is not ${platform.userId}`, false);
      const tooLong = textTooLong(channel, message.body);
      if (tooLong) throw new ChannelError(tooLong, false, 'TEXT_TOO_LONG');
      const json = {
        recipient: { id: message.to },
        ...(message.humanAgent
          ? { messaging_type: 'MESSAGE_TAG', tag: 'HUMAN_AGENT' }
          : { messaging_type: 'RESPONSE' }),
        message: { text: message.body },
      };
      const { status, answer } = await postToProvider(
        platform.name,
        endpoint,
        { json },
        { authorization: `Bearer ${token}`, secret: token, timeoutMs: options.timeoutMs },
      );
      if (status < 200 || status >= 300) {
        const error = graphError(platform.name, status, answer, token, platform.retryableCodes);
        // 190: the token expired or was revoked; only the account's owner can give a new one.
        if (error.code === '190')
          throw new ChannelError(`${platform.token} has expired or was revoked: ${error.message}`, false, error.code);
        throw error;
      }
      const sent = str(answer?.message_id);
      // The message may have gone: trying again could write to the contact twice.
      if (!sent) throw new ChannelError(`${platform.name} answered HTTP ${status} without a message id`, false);
      return { providerMessageId: sent };
    },
  };
}

/**
 * The contact's name as the platform tells it: Messenger's first and last name, Instagram's name (split at its first
 * space) or, without one, the username. Undefined when Meta tells nothing or cannot be asked (no permission, an
 * expired token, a timeout): a missing name never stops a message.
 */
export async function fetchMetaProfile<C extends MetaChannel>(
  channel: C,
  c: MetaMessagingCredentials[C],
  id: string,
  options: MetaMessagingOptions,
): Promise<MetaProfile | undefined> {
  if (!USER_ID.test(id)) return undefined;
  const { token } = sendingAccount(channel, c);
  const fields = channel === 'messenger' ? 'first_name,last_name' : 'name,username';
  let answer: Record<string, unknown>;
  try {
    answer = await readProviderJson(`${apiBase(options.apiUrl)}/${id}?fields=${fields}`, {
      authorization: `Bearer ${token}`,
      secret: token,
      timeoutMs: options.timeoutMs,
    });
  } catch {
    return undefined;
  }
  let firstName: string | null;
  let lastName: string | null;
  if (channel === 'messenger') {
    firstName = str(answer.first_name) ?? null;
    lastName = str(answer.last_name) ?? null;
  } else {
    const name = str(answer.name);
    const space = name ? name.search(/\s/) : -1;
    firstName = name ? (space < 0 ? name : name.slice(0, space)) : (str(answer.username) ?? null);
    lastName = name && space >= 0 ? name.slice(space).trim() || null : null;
  }
  // A name that cannot be stored is no name: the message is still taken.
  return (firstName || lastName) && storableText([firstName, lastName]) ? { firstName, lastName } : undefined;
}
