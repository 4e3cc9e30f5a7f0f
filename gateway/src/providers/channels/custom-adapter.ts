import { decodeDataUri, isDataUri } from '../../domain/media.js';
import { badRequest } from '../../errors.js';
import type { CustomChannelAdapter, CustomChannelPost } from '../../engine/ports/api-channels.js';
import type { Json } from '../../store/store.js';

/**
 * The custom channel both ways (spec §4.5): the caller's system posts a contact's message to
 * /v1/incoming_custom_channel_message and is answered with the stored message's id, so its one entry is taken while
 * the caller waits rather than in a job; what the gateway sends leaves as signed webhook deliveries.
 */
export function createCustomChannelAdapter(options: { maxBytes: number }): CustomChannelAdapter {
  return {
    name: 'custom',
    /** The caller carries no signature: its API key already proved it the account's, before the route ran. */
    verify: () => Promise.resolve(true),
    /** No subscription handshake: the account itself names where its replies go. */
    subscribe: () => undefined,
    /** One message a post, its text already held to the route's schema: nothing is refused here. */
    entries: ({ body }) => ({
      entries: [
        {
          kind: 'message',
          where: 'customData',
          key: messageSidOf(body),
          sender: body.customData.fromId,
          raw: body as unknown as Json,
        },
      ],
      refused: [],
    }),
    parse(entry) {
      const post = entry.raw as unknown as CustomChannelPost;
      if (!post || typeof post !== 'object' || !post.customData)
        throw badRequest('customData is missing: not a custom channel message');
      return {
        messages: [{ ...post.customData, messageSid: messageSidOf(post), messageType: post.messageType }],
        statuses: [],
        readMarks: [],
      };
    },
    /** The caller names the contact in the message itself (firstName, lastName, email). */
    profile: () => Promise.resolve(undefined),
    /**
     * A file embedded as a data: URI is decoded and held to its declared type and the size limit (a 400 or 413 the
     * caller is answered with); a file at an http(s) address stays there, the message keeps the address.
     */
    readFile: (url, declared) =>
      isDataUri(url) ? decodeDataUri(url, declared ?? '', options.maxBytes) : Promise.resolve(undefined),
  };
}

/** The message's id; `id` is its older name. The route's schema lets no message through without one. */
const messageSidOf = ({ customData }: CustomChannelPost): string => (customData.messageSid ?? customData.id)!;
