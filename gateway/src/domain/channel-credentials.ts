import { z } from 'zod';
import { answersOnly, type BuiltInChannel, type MetaChannel } from '../api-contract.js';
import { mask } from './mask.js';
import { readPhone } from './phone.js';

/**
 * The credentials of the built-in channels' providers as an account stores them: their shape, how a request gives
 * them, how the API shows them back, and what each provider needs before a campaign can send through it.
 */

export interface TwilioCredentials {
  accountSid: string;
  authToken: string;
  /** SMS sender: E.164 number */
  from: string | null;
  /** or a Messaging Service SID "MG…" */
  messagingServiceSid: string | null;
  /** WhatsApp sender E.164, enabling WhatsApp through Twilio */
  whatsappFrom: string | null;
}

export const WHATSAPP_PREFIX = 'whatsapp:';
export const CONTENT_SID = /^HX[0-9a-f]{32}$/i;

/** Forms send an unset field as "", which means the same as leaving it out. */
const blankIsNull = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? null : v);
const optional = <T extends z.ZodType<string>>(schema: T) => z.preprocess(blankIsNull, schema.nullable().default(null));

/** Twilio's console shows a WhatsApp sender as "whatsapp:+1415…": pasted as is, it is the same number. */
const senderPhone = (whatsapp: boolean) =>
  z
    .string()
    .max(60, 'must be at most 60 characters')
    .transform((v, ctx) => {
      const number = whatsapp && v.trim().startsWith(WHATSAPP_PREFIX) ? v.trim().slice(WHATSAPP_PREFIX.length) : v;
      const phone = readPhone(number);
      if (phone) return phone;
      ctx.addIssue({
        code: 'custom',
        message: 'must be a phone number in E.164 form with its country code, such as +14155550123',
      });
      return z.NEVER;
    });

export const twilioCredentials: z.ZodType<TwilioCredentials, any> = z
  .strictObject({
    accountSid: z
      .string()
      .trim()
      .regex(/^AC[0-9a-f]{32}$/, 'must be a Twilio Account SID: "AC" and 32 hex characters'),
    authToken: z
      .string()
      .trim()
      .regex(/^[0-9a-f]{32}$/, 'must be a Twilio Auth Token: 32 hex characters'),
    from: optional(senderPhone(false)),
    messagingServiceSid: optional(
      z
        .string()
        .trim()
        .regex(/^MG[0-9a-f]{32}$/, 'must be a Messaging Service SID: "MG" and 32 hex characters'),
    ),
    whatsappFrom: optional(senderPhone(true)),
  })
  .refine((c) => c.from || c.messagingServiceSid || c.whatsappFrom, {
    message: 'at least one sender is required: from or messagingServiceSid for SMS, whatsappFrom for WhatsApp',
    path: ['from'],
  });

/** The credentials as the API shows them back: the token masked. */
export function publicTwilioCredentials(c: TwilioCredentials): {
  accountSid: string;
  authToken: string;
  from: string | null;
  messagingServiceSid: string | null;
  whatsappFrom: string | null;
} {
  return {
    accountSid: c.accountSid,
    authToken: mask(c.authToken),
    from: c.from,
    messagingServiceSid: c.messagingServiceSid,
    whatsappFrom: c.whatsappFrom,
  };
}

/** What Meta's platforms (WhatsApp, Messenger, Instagram) ask for alike. */
const graphId = (what: string) =>
  z
    .string()
    .trim()
    .regex(/^\d{1,30}$/, `must be the ${what} Meta shows: digits only`);
const accessToken = z
  .string()
  .trim()
  .min(1, 'must not be empty or whitespace')
  .max(1000, 'must be at most 1000 characters')
  .regex(/^\S+$/, 'must be one token, without spaces');
const appSecret = z
  .string()
  .trim()
  .regex(/^[0-9a-f]{32}$/, 'must be the Meta app secret: 32 hex characters');
const verifyToken = z.string().min(8, 'must be at least 8 characters').max(200, 'must be at most 200 characters');

export interface WhatsAppCloudCredentials {
  phoneNumberId: string;
  accessToken: string;
  appSecret: string;
  verifyToken: string;
}

export const whatsAppCloudCredentials: z.ZodType<WhatsAppCloudCredentials, any> = z.strictObject({
  phoneNumberId: graphId('Phone number ID'),
  accessToken,
  appSecret,
  verifyToken,
});

/** The credentials as the API shows them back: the secrets masked, the verify token shown for Meta's console. */
export function publicWhatsAppCloudCredentials(c: WhatsAppCloudCredentials): {
  phoneNumberId: string;
  accessToken: string;
  appSecret: string;
  verifyToken: string;
} {
  return {
    phoneNumberId: c.phoneNumberId,
    accessToken: mask(c.accessToken),
    appSecret: mask(c.appSecret),
    verifyToken: c.verifyToken,
  };
}

/** A Facebook Page's Messenger: the Page, its access token, and the Meta app's secret and webhook verify token. */
export interface MessengerCredentials {
  pageId: string;
  pageAccessToken: string;
  appSecret: string;
  verifyToken: string;
}

/** An Instagram professional account's messages: the account, its access token, the app's secret and verify token. */
export interface InstagramCredentials {
  instagramAccountId: string;
  accessToken: string;
  appSecret: string;
  verifyToken: string;
}

export const messengerCredentials: z.ZodType<MessengerCredentials, any> = z.strictObject({
  pageId: graphId('Page ID'),
  pageAccessToken: accessToken,
  appSecret,
  verifyToken,
});

export const instagramCredentials: z.ZodType<InstagramCredentials, any> = z.strictObject({
  instagramAccountId: graphId('Instagram account ID'),
  accessToken,
  appSecret,
  verifyToken,
});

export const publicMessengerCredentials = (c: MessengerCredentials) => ({
  pageId: c.pageId,
  pageAccessToken: mask(c.pageAccessToken),
  appSecret: mask(c.appSecret),
  verifyToken: c.verifyToken,
});

export const publicInstagramCredentials = (c: InstagramCredentials) => ({
  instagramAccountId: c.instagramAccountId,
  accessToken: mask(c.accessToken),
  appSecret: mask(c.appSecret),
  verifyToken: c.verifyToken,
});

/** What a campaign asks of the provider that sends it. */
export type CampaignSending = { channel: BuiltInChannel; openingTemplate: string | null };

const META_NAMES: Record<MetaChannel, string> = {
  messenger: 'a Facebook Page for Messenger',
  instagram: 'an Instagram professional account',
};

function twilioRefusal(c: TwilioCredentials, campaign: CampaignSending): string | undefined {
  if (campaign.channel === 'sms') {
    return c.from || c.messagingServiceSid
      ? undefined
      : 'Twilio has no SMS sender: set from (a phone number) or messagingServiceSid in the Twilio channel';
  }
  if (!c.whatsappFrom) return 'Twilio has no WhatsApp sender: set whatsappFrom in the Twilio channel';
  const template = campaign.openingTemplate?.trim();
  if (!template) {
    return 'WhatsApp sends the first message of a conversation only with an approved template: set openingTemplate to its Twilio Content SID ("HX…")';
  }
  if (!CONTENT_SID.test(template))
    return `On Twilio, openingTemplate must be the template's Content SID ("HX" and 32 hex characters), not "${template.slice(0, 40)}"`;
  return undefined;
}

function whatsAppCloudRefusal(campaign: CampaignSending): string | undefined {
  if (campaign.channel !== 'whatsapp')
    return 'The WhatsApp Cloud API sends WhatsApp only: SMS needs the Twilio channel';
  if (!campaign.openingTemplate?.trim()) {
    return 'WhatsApp sends the first message of a conversation only with an approved template: set openingTemplate to its name';
  }
  return undefined;
}

/** The offline `log` provider holds WhatsApp to the same rule as the real ones: an opening needs an approved template. */
function logRefusal(campaign: CampaignSending): string | undefined {
  if (campaign.channel === 'whatsapp' && !campaign.openingTemplate?.trim()) {
    return 'WhatsApp sends the first message of a conversation only with an approved template: set openingTemplate';
  }
  return undefined;
}

/** An account's channel credentials, by provider. */
export interface ChannelCredentials {
  twilio?: TwilioCredentials;
  whatsapp?: WhatsAppCloudCredentials;
  messenger?: MessengerCredentials;
  instagram?: InstagramCredentials;
}

/**
 * Which provider sends on a built-in channel for this account: WhatsApp goes through the WhatsApp Cloud API when it
 * is set up, else through Twilio; SMS through Twilio. The offline log provider takes a channel only while the
 * account has no provider at all: once one is set up, a channel it cannot serve is refused, never sent nowhere.
 */
export function senderOf(
  channels: ChannelCredentials | undefined,
  channel: 'sms' | 'whatsapp',
): 'whatsapp' | 'twilio' | 'log' {
  const { twilio, whatsapp } = channels ?? {};
  if (channel === 'whatsapp' && whatsapp) return 'whatsapp';
  if (twilio) return 'twilio';
  return whatsapp ? 'whatsapp' : 'log';
}

/**
 * Why a campaign cannot send through the account's provider for its channel, or undefined when it can. Messenger
 * and Instagram have no offline provider: they take messages only from contacts who write, through Meta.
 */
export function sendingRefusal(
  channels: ChannelCredentials | undefined,
  campaign: CampaignSending,
): string | undefined {
  if (answersOnly(campaign.channel)) {
    return channels?.[campaign.channel]
      ? undefined
      : `Connect ${META_NAMES[campaign.channel]} first: PUT /v1/channels/${campaign.channel}`;
  }
  const sender = senderOf(channels, campaign.channel);
  if (sender === 'whatsapp') return whatsAppCloudRefusal(campaign);
  if (sender === 'twilio') return twilioRefusal(channels!.twilio!, campaign);
  return logRefusal(campaign);
}
