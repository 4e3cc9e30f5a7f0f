import type { ChannelAdapter, ChannelReceiver } from './channel-adapter.js';
import type { InboundMessage } from './channel-provider.js';

/**
 * A post to one of the gateway's own entries for a channel (the custom channel's incoming message, the log
 * provider's SMS or WhatsApp entry): made with an API key, its body already held to the route's schema.
 */
export interface ApiPost<Body> {
  body: Body;
}

/** POST /v1/incoming_custom_channel_message, as its schema lets it through (spec §4.5). */
export interface CustomChannelPost {
  customData: {
    messageSid?: string;
    /** The older name of messageSid. */
    id?: string;
    fromId: string;
    toId: string;
    body: string;
    status?: string;
    channel?: string;
    campaignId?: string;
    firstName?: string;
    lastName?: string;
    email?: string;
    /** An address of the file (http, https) or the file itself (a data: URI). */
    mediaUrl?: string | null;
    mediaContentType?: string | null;
  };
  messageType?: 'text' | 'reaction';
}

/**
 * A contact's message on the custom channel, in the engine's words (engine/receive.ts stores it): the post's fields,
 * its `messageSid` (or the older `id`) as the one id a repeat is known by, and its type.
 */
export type CustomChannelMessage = Omit<CustomChannelPost['customData'], 'messageSid' | 'id'> & {
  messageSid: string;
  messageType?: CustomChannelPost['messageType'];
};

/**
 * The custom channel's way in: messages come through the API. It has no `send`: its replies leave as signed webhook
 * deliveries to the account's customChannelWebhookUrl and subscriptions, written in the reply's own transaction
 * (engine/outgoing.ts) and posted by the `deliver` job, retried on its schedule under one webhook-id. A provider's
 * one stateless call could not promise that.
 */
export type CustomChannelAdapter = ChannelReceiver<ApiPost<CustomChannelPost>, CustomChannelMessage>;

/** The log provider's entry for a contact's SMS or WhatsApp message: POST /v1/channels/{sms|whatsapp}/incoming. */
export interface LogChannelPost {
  phone: string;
  body: string;
  messageSid?: string;
}

/** A message posted on the log channel: a provider's message whose sender may name no id for it. */
export type PostedMessage = Omit<InboundMessage, 'providerMessageId'> & { providerMessageId: string | null };

/** SMS or WhatsApp on the offline log provider: messages posted by hand, replies only logged. */
export type LogChannelAdapter = ChannelAdapter<ApiPost<LogChannelPost>, PostedMessage>;

/** The channels an account's own API key speaks for, without a provider's webhook. */
export type LogChannel = 'sms' | 'whatsapp';
