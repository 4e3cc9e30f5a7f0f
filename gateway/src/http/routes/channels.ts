import { getAccount } from '../../domain/accounts.js';
import { publicChannels, removeChannel, setChannel, type ProviderName } from '../../domain/channels.js';
import type { Engine } from '../../engine/ports/providers.js';
import { receiveFromProvider } from '../../engine/inbound.js';
import { messageOfPost } from '../../engine/receive.js';
import { ApiError, notFound } from '../../errors.js';
import { jsonBody } from '../middleware/json-body.js';
import { publicBase } from '../public-base.js';
import { accountOf, auditBy, parse, route, sendDurable, type Routes } from '../route.js';
import { channelIncoming, instagramChannel, messengerChannel, twilioChannel, whatsappChannel } from '../schemas.js';
import type { received } from '../../contract/messages.js';
import type { Answer } from '../../contract/shared.js';

const CHANNELS = ['sms', 'whatsapp'] as const;

/**
 * The account's built-in channels: Twilio and WhatsApp Cloud API credentials (shown back masked, with the webhook
 * addresses to give the provider), and the offline entry for a contact's SMS or WhatsApp message while the channel
 * runs on the `log` provider: what the provider's own webhook does once a real one sends. It goes through the same
 * engine (opt-out, hand-off, bot), so a funnel can be tried end to end before any provider account exists.
 */
export function channelsRoutes(v1: Routes, gw: Engine): void {
  const answer = async (accountId: string) =>
    publicChannels(await getAccount(gw.store, accountId), publicBase(gw.config), Boolean(gw.config.publicUrl));
  route(v1, '/channels', {
    get: async (req, res) => {
      await sendDurable(gw, res.set('Cache-Control', 'no-store'), await answer(accountOf(res).id));
    },
  });
  const providers = [
    ['twilio', twilioChannel],
    ['whatsapp', whatsappChannel],
    ['messenger', messengerChannel],
    ['instagram', instagramChannel],
  ] as const;
  for (const [provider, schema] of providers) {
    route(v1, `/channels/${provider}`, {
      put: [
        jsonBody(),
        async (req, res) => {
          await setChannel(gw, accountOf(res).id, provider as ProviderName, parse(schema, req.body), auditBy(res));
          res.set('Cache-Control', 'no-store').json(await answer(accountOf(res).id));
        },
      ],
      delete: async (req, res) => {
        await removeChannel(gw, accountOf(res).id, provider, auditBy(res));
        res.set('Cache-Control', 'no-store').json(await answer(accountOf(res).id));
      },
    });
  }
  route(v1, '/channels/:channel/incoming', {
    post: [
      jsonBody(),
      async (req, res) => {
        const channel = CHANNELS.find((c) => c === req.params.channel);
        if (!channel) throw notFound('Channel', `Channel not found; use one of ${CHANNELS.join(', ')}`);
        const account = accountOf(res);
        const adapter = gw.providers.logChannel(gw.config, account, channel);
        if (!adapter) {
          throw new ApiError(
            409,
            'CHANNEL_NOT_OFFLINE',
            `The ${channel} channel receives messages from its provider's webhook, not here`,
          );
        }
        // The log channel's adapter reads the post as a provider's webhook would be read; the engine takes the message.
        const incoming = await messageOfPost(adapter, parse(channelIncoming, req.body));
        const { message, contact } = await receiveFromProvider(gw, account, adapter, incoming);
        res.json({
          success: true,
          messageId: message.id,
          contactId: contact.id,
          conversationId: message.conversationId,
        } satisfies Answer<typeof received>);
      },
    ],
  });
}
