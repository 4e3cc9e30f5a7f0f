import type { LogChannel, LogChannelAdapter, LogChannelPost } from '../../engine/ports/api-channels.js';
import { badRequest } from '../../errors.js';
import type { Json } from '../../store/store.js';
import { logProvider } from './log.js';

/**
 * SMS or WhatsApp on the offline log provider: a contact's message is posted by hand to
 * /v1/channels/{sms|whatsapp}/incoming (what a provider's webhook does once a real one sends) and taken while the
 * caller waits; what the gateway sends is only recorded (log.ts).
 */
export function createLogChannelAdapter(channel: LogChannel): LogChannelAdapter {
  return {
    ...logProvider,
    /** No provider signs the post: the caller's API key already proved it the account's, before the route ran. */
    verify: () => Promise.resolve(true),
    subscribe: () => undefined,
    /** One message a post, its text already held to the route's schema: nothing is refused here. */
    entries: ({ body }) => ({
      entries: [
        {
          kind: 'message',
          where: 'body',
          key: body.messageSid ?? null,
          sender: body.phone,
          raw: body as unknown as Json,
        },
      ],
      refused: [],
    }),
    parse(entry) {
      const post = entry.raw as unknown as LogChannelPost;
      if (!post || typeof post !== 'object' || typeof post.phone !== 'string')
        throw badRequest('phone is missing: not a message posted on the log channel');
      const message = {
        channel,
        providerMessageId: post.messageSid ?? null,
        from: post.phone,
        body: post.body,
        media: [],
        profileName: null,
        sentAt: null,
      };
      return { messages: [message], statuses: [], readMarks: [] };
    },
    /** The poster names no one: a new contact is known by their phone number. */
    profile: () => Promise.resolve(undefined),
    /** A posted message carries no file. */
    readFile: () => Promise.resolve(undefined),
  };
}
