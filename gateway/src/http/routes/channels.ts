import { Router, type RequestHandler } from 'express';
import type { Gateway } from '../../context.js';
import { receiveOnChannel } from '../../domain/messages.js';
import { ApiError } from '../../errors.js';
import { channelProvider } from '../../providers/channels/index.js';
import { jsonBody } from '../middleware/json-body.js';
import { accountOf, parse, route } from '../route.js';
import { channelIncoming } from '../schemas.js';

const CHANNELS = ['sms', 'whatsapp'] as const;

/**
 * A contact's SMS or WhatsApp message, posted by hand while the channel runs on the offline `log` provider: what
 * the provider's own webhook does once a real one sends. It goes through the same engine (opt-out, hand-off,
 * cancelled follow-ups), so a funnel can be tried end to end before any provider account exists.
 */
export function channelsRouter(gw: Gateway, before: RequestHandler[]): Router {
  const router = Router();
  route(router, '/channels/:channel/incoming', {
    post: [jsonBody(), async (req, res) => {
      const channel = CHANNELS.find((c) => c === req.params.channel);
      if (!channel) throw new ApiError(404, 'NOT_FOUND', `Channel not found; use one of ${CHANNELS.join(', ')}`);
      if (channelProvider(channel).name !== 'log') {
        throw new ApiError(409, 'CHANNEL_NOT_OFFLINE', `The ${channel} channel receives messages from its provider's webhook, not here`);
      }
      const { message, contact } = await receiveOnChannel(gw, accountOf(res), channel, parse(channelIncoming, req.body));
      res.json({ success: true, messageId: message.id, contactId: contact.id, conversationId: message.conversationId });
    }],
  }, before);
  return router;
}
