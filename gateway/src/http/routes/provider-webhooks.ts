import type { IncomingMessage } from 'node:http';
import express, { type Request, type Response } from 'express';
import type { Gateway } from '../../context.js';
import type { Account } from '../../domain/accounts.js';
import { copyProviderFile } from '../../domain/media.js';
import { textFault, utf8, type RefusedPart } from '../../domain/storable-text.js';
import { applyStatusUpdate, applyWatermark } from '../../engine/message-status.js';
import { contactOfExternalId } from '../../domain/contact-identity.js';
import type { ProviderName } from '../../domain/channels.js';
import { receiveOnChannel } from '../../engine/receive.js';
import { ApiError, badRequest, notFound } from '../../errors.js';
import type { InboundMessage, MetaChannel, MetaProfile } from '../../engine/ports/channel-provider.js';
import { metrics } from '../../metrics.js';
import type { ProviderFile } from '../../providers/channels/provider-file.js';
import { parseTwilioInbound, parseTwilioStatus, readTwilioMedia, twilioFormIsUtf8, verifyTwilioSignature } from '../../providers/channels/twilio.js';
import { verifyMetaSignature, verifyMetaSubscription } from '../../providers/channels/meta-graph.js';
import { fetchMetaProfile, parseMetaMessagingWebhook } from '../../providers/channels/meta-messaging.js';
import { parseWhatsAppWebhook, readWhatsAppMedia } from '../../providers/channels/whatsapp-cloud.js';
import { route, type Routes } from '../route.js';
import { publicBase } from '../public-base.js';

/** A contact's file is read while the provider waits for the webhook's answer (Twilio waits 15 s at most). */
const FILE_TIMEOUT_MS = 10_000;
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';
const badSignature = () => new ApiError(403, 'INVALID_SIGNATURE', 'The request signature does not match the channel credentials');

/**
 * What Twilio and Meta post to the gateway: contacts' messages and the status of messages sent. They carry no API
 * key: each request is proven by its provider's signature over the body, made with the account's own secret (Twilio
 * auth token, Meta app secret), and refused with 403 otherwise. An account without that provider is not found.
 *
 * Text is judged by the rule of /v1 (storable-text), but a signed entry whose text breaks it is refused alone and
 * answered as taken: a provider sends again what it was not answered 2xx for, so one bad entry would bring its whole
 * batch back again and again. A Twilio request is one entry; a Meta webhook's are its events (messages, receipts, statuses).
 */
export function providerWebhooksRoutes(v1: Routes, gw: Gateway): void {
  /** Twilio forms whose bytes were not UTF-8: the parsed form no longer shows it. */
  const notUtf8Forms = new WeakSet<IncomingMessage>();
  const form = express.urlencoded({
    extended: false,
    limit: '100kb',
    parameterLimit: 200,
    type: () => true,
    verify: (req, _res, bytes, encoding) => {
      // An ISO-8859-1 form has no bytes that are not characters.
      if (encoding === 'utf-8' && !twilioFormIsUtf8(bytes)) notUtf8Forms.add(req);
    },
  });
  const raw = express.raw({ limit: '1mb', type: () => true });

  /** Each refused entry: one warn line and one count, naming where it was and why, never its text. */
  function refuse(provider: ProviderName, account: Account, parts: readonly RefusedPart[] = []): void {
    for (const { where, fault } of parts) {
      gw.log.warn({ provider, account: account.id, reason: fault, where }, 'provider webhook entry refused: its text cannot be stored');
      metrics.providerEntriesRefused.inc({ provider, reason: fault });
    }
  }

  async function withProvider<P extends ProviderName>(req: Request, provider: P) {
    const account = await gw.store.get<Account>('accounts', String(req.params.accountId));
    const credentials = account?.channels?.[provider];
    if (!account || !credentials) throw notFound('Channel', `The ${provider} channel of this account not found`);
    return { account, credentials: credentials as NonNullable<NonNullable<Account['channels']>[P]> };
  }

  /**
   * A contact's message; its file, if any, read from the provider with `readFile` and kept by the gateway (without
   * `readFile`, the provider's address of the file is kept as it is).
   */
  async function receive(account: Account, message: InboundMessage, readFile?: (url: string) => Promise<ProviderFile>, names?: MetaProfile): Promise<void> {
    const media = message.media[0] ?? null;
    await receiveOnChannel(gw, account, message.channel, {
      from: message.from,
      body: message.body,
      messageSid: message.providerMessageId,
      messageType: message.messageType,
      media,
      keepFile: media && readFile ? () => copyProviderFile(gw, account.id, () => readFile(media.url)) : undefined,
      firstName: names?.firstName ?? message.profileName,
      lastName: names?.lastName,
      sentAt: message.sentAt,
    });
  }
  const fileOptions = (apiUrl: string) => ({ apiUrl, maxBytes: gw.config.maxMediaBytes, timeoutMs: FILE_TIMEOUT_MS, targets: gw.config.targetPolicy });

  /** A signed Twilio request, and whether its text may be stored: one that may not is refused here, alone. */
  async function twilioRequest(req: Request) {
    const { account, credentials } = await withProvider(req, 'twilio');
    const params = (req.body ?? {}) as Record<string, string>;
    const url = `${publicBase(gw.config)}${req.originalUrl}`;
    if (!(await verifyTwilioSignature(credentials.authToken, url, params, req.get('x-twilio-signature')))) throw badSignature();
    const fault = notUtf8Forms.has(req) ? 'not_utf8' : textFault(params);
    if (fault) refuse('twilio', account, [{ where: 'form', fault }]);
    return { account, credentials, params, refused: fault !== undefined };
  }

  route(v1, '/channels/twilio/:accountId/incoming', {
    post: [form, async (req, res) => {
      const { account, credentials, params, refused } = await twilioRequest(req);
      if (!refused) await receive(account, parseTwilioInbound(params), (url) => readTwilioMedia(credentials, url, fileOptions(gw.config.twilioApiUrl)));
      res.type('text/xml').send(EMPTY_TWIML);
    }],
  });
  route(v1, '/channels/twilio/:accountId/status', {
    post: [form, async (req, res) => {
      const { account, params, refused } = await twilioRequest(req);
      const update = refused ? undefined : parseTwilioStatus(params);
      if (update) await applyStatusUpdate(gw, account, update);
      res.status(204).end();
    }],
  });
  /** Meta's subscription handshake: the challenge back when Meta proves it knows the channel's verify token. */
  const handshake = (provider: 'whatsapp' | MetaChannel) => async (req: Request, res: Response) => {
    const { credentials } = await withProvider(req, provider);
    const challenge = verifyMetaSubscription(credentials.verifyToken, req.query as Record<string, unknown>);
    if (challenge === undefined) throw new ApiError(403, 'INVALID_VERIFY_TOKEN', 'hub.verify_token does not match the channel\'s verifyToken');
    res.type('text/plain').send(challenge);
  };

  /**
   * The JSON of a Meta webhook, once its X-Hub-Signature-256 proves it was made with the channel's app secret;
   * undefined when its bytes are not UTF-8. Such a body cannot be split into its entries, since decoding it would
   * hide which held the bytes: the whole of it is refused (logged, counted) and answered as taken, or Meta would
   * send it again until it gives up on the callback.
   */
  function signedJson(req: Request, provider: ProviderName, account: Account, appSecret: string): unknown {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!verifyMetaSignature(appSecret, body, req.get('x-hub-signature-256'))) throw badSignature();
    if (!utf8(body)) {
      refuse(provider, account, [{ where: 'body', fault: 'not_utf8' }]);
      return undefined;
    }
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      throw badRequest('The body is not JSON');
    }
  }
  const taken = (res: Response) => res.status(200).json({ success: true });

  route(v1, '/channels/whatsapp/:accountId/webhook', {
    get: handshake('whatsapp'),
    post: [raw, async (req, res) => {
      const { account, credentials } = await withProvider(req, 'whatsapp');
      const body = signedJson(req, 'whatsapp', account, credentials.appSecret);
      if (body === undefined) {
        taken(res);
        return;
      }
      const { messages, statuses, refused } = parseWhatsAppWebhook(body);
      refuse('whatsapp', account, refused);
      for (const message of messages) await receive(account, message, (url) => readWhatsAppMedia(credentials, url, fileOptions(gw.config.whatsappApiUrl)));
      for (const status of statuses) await applyStatusUpdate(gw, account, status);
      taken(res);
    }],
  });

  // Messenger and Instagram: attachments stay at Meta's addresses; a new sender is named from Meta's profile API.
  for (const channel of ['messenger', 'instagram'] as const) {
    route(v1, `/channels/${channel}/:accountId/webhook`, {
      get: handshake(channel),
      post: [raw, async (req, res) => {
        const { account, credentials } = await withProvider(req, channel);
        const ownId = 'pageId' in credentials ? credentials.pageId : credentials.instagramAccountId;
        const body = signedJson(req, channel, account, credentials.appSecret);
        if (body === undefined) {
          taken(res);
          return;
        }
        const { messages, statuses, watermarks, refused } = parseMetaMessagingWebhook(channel, body, ownId);
        refuse(channel, account, refused);
        const options = { apiUrl: channel === 'messenger' ? gw.config.messengerApiUrl : gw.config.instagramApiUrl, timeoutMs: FILE_TIMEOUT_MS };
        for (const message of messages) {
          const known = await contactOfExternalId(gw.store, account.id, message.from);
          const names = known ? undefined : await fetchMetaProfile(channel, credentials, message.from, options);
          await receive(account, message, undefined, names);
        }
        for (const status of statuses) await applyStatusUpdate(gw, account, status);
        for (const watermark of watermarks) await applyWatermark(gw, account, watermark);
        taken(res);
      }],
    });
  }
}
