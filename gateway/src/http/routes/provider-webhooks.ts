import type { IncomingMessage } from 'node:http';
import express, { type Request, type Response } from 'express';
import type { Account } from '../../domain/accounts.js';
import type { WebhookProvider } from '../../domain/inbound-entries.js';
import { formIsUtf8, type RefusedPart } from '../../domain/storable-text.js';
import { takeEntries } from '../../engine/inbound.js';
import type { SkippedPart, WebhookRequest } from '../../engine/ports/channel-adapter.js';
import type { Engine } from '../../engine/ports/providers.js';
import { ApiError, notFound } from '../../errors.js';
import { metrics } from '../../metrics.js';
import { publicBase } from '../public-base.js';
import { route, type Routes } from '../route.js';

const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';
const badSignature = () =>
  new ApiError(403, 'INVALID_SIGNATURE', 'The request signature does not match the channel credentials');

/**
 * What Twilio and Meta post to the gateway: contacts' messages and the status of messages sent. They carry no API
 * key: each request is proven by its provider's signature over the body, made with the account's own secret (Twilio
 * auth token, Meta app secret), and refused with 403 otherwise. An account without that provider is not found.
 *
 * A signed request is split into its entries (a Twilio request is one; a Meta webhook's are its messages, statuses
 * and receipts), each stored as a job in one transaction, and the provider is answered at once: files, profiles and
 * the engine are the jobs' to read and run (engine/inbound.ts), so a slow file host never keeps a provider waiting
 * into its timeout and a redelivery. Text is judged by the rule of /v1 (storable-text) while the provider waits,
 * but an entry whose text breaks it is refused alone and answered as taken: a provider sends again what it was not
 * answered 2xx for, so one bad entry would bring its whole batch back again and again. Nothing vanishes unsaid: an
 * entry of a shape its provider does not send is still a job, which dies naming where it was and why; one that carries
 * nothing to keep (a kind the gateway does not take, or nothing it can read) is logged and counted.
 */
export function providerWebhooksRoutes(v1: Routes, gw: Engine): void {
  /** Twilio forms as their bytes came, and those whose bytes were not UTF-8: the parsed form no longer shows it. */
  const formBytes = new WeakMap<IncomingMessage, Buffer>();
  const notUtf8Forms = new WeakSet<IncomingMessage>();
  const form = express.urlencoded({
    extended: false,
    limit: '100kb',
    parameterLimit: 200,
    type: () => true,
    verify: (req, _res, bytes, encoding) => {
      formBytes.set(req, bytes);
      // An ISO-8859-1 form has no bytes that are not characters.
      if (encoding === 'utf-8' && !formIsUtf8(bytes)) notUtf8Forms.add(req);
    },
  });
  // Meta's webhooks batch many changes in one body, "up to 3MB" by its documentation: a larger limit than the API's.
  const raw = express.raw({ limit: '3mb', type: () => true });

  /** Each refused entry: one warn line and one count, naming where it was and why, never its text. */
  function refuse(provider: WebhookProvider, account: Account, parts: readonly RefusedPart[]): void {
    for (const { where, fault } of parts) {
      gw.log.warn(
        { provider, account: account.id, reason: fault, where },
        'provider webhook entry refused: its text cannot be stored',
      );
      metrics.providerEntriesRefused.inc({ provider, reason: fault });
    }
  }

  /**
   * Each skipped entry (it carried nothing to keep): one line and one count, naming where it was, why and its kind,
   * never its text. What the gateway cannot read is a warning; a kind it does not take, news.
   */
  function skip(provider: WebhookProvider, account: Account, parts: readonly SkippedPart[]): void {
    for (const { where, reason, detail } of parts) {
      const line = { provider, account: account.id, reason, where, detail };
      if (reason === 'unreadable') gw.log.warn(line, 'provider webhook entry skipped: nothing the gateway can read');
      else gw.log.info(line, 'provider webhook entry skipped: a kind the gateway does not take');
      metrics.providerEntriesSkipped.inc({ provider, reason });
    }
  }

  /** The account's adapter of the provider named in the path; 404 when the account has not connected it. */
  async function adapterOf(req: Request, provider: WebhookProvider) {
    const account = await gw.store.get<Account>('accounts', String(req.params.accountId));
    const adapter = account && gw.providers.adapter(gw.config, account, provider);
    if (!account || !adapter) throw notFound('Channel', `No ${provider} channel is connected to this account`);
    return { account, adapter };
  }

  /** The request as its provider signed it: Twilio posts forms (`incoming`, `status`), Meta JSON (`webhook`). */
  function webhookRequest(req: Request, hook: WebhookRequest['hook']): WebhookRequest {
    const request = {
      hook,
      url: `${publicBase(gw.config)}${req.originalUrl}`,
      header: (name: string) => req.get(name),
    };
    if (hook === 'webhook') return { ...request, body: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0) };
    const params = (req.body ?? {}) as Record<string, string>;
    return { ...request, body: formBytes.get(req) ?? Buffer.alloc(0), form: { params, utf8: !notUtf8Forms.has(req) } };
  }

  /** Verifies the request, stores its entries as jobs and answers with `answer` once they are durable. */
  const take =
    (provider: WebhookProvider, hook: WebhookRequest['hook'], answer: (res: Response) => void) =>
    async (req: Request, res: Response) => {
      const { account, adapter } = await adapterOf(req, provider);
      const request = webhookRequest(req, hook);
      if (!(await adapter.verify(request))) throw badSignature();
      const { entries, refused, skipped = [] } = adapter.entries(request);
      await takeEntries(gw, account.id, provider, entries);
      refuse(provider, account, refused);
      skip(provider, account, skipped);
      answer(res);
    };

  route(v1, '/channels/twilio/:accountId/incoming', {
    post: [form, take('twilio', 'incoming', (res) => void res.type('text/xml').send(EMPTY_TWIML))],
  });
  route(v1, '/channels/twilio/:accountId/status', {
    post: [form, take('twilio', 'status', (res) => void res.status(204).end())],
  });

  /** Meta's subscription handshake: the challenge back when Meta proves it knows the channel's verify token. */
  const handshake = (provider: WebhookProvider) => async (req: Request, res: Response) => {
    const { adapter } = await adapterOf(req, provider);
    const challenge = adapter.subscribe(req.query as Record<string, unknown>);
    if (challenge === undefined)
      throw new ApiError(
        403,
        'INVALID_VERIFY_TOKEN',
        "The subscription handshake takes hub.mode=subscribe, a hub.challenge and the channel's verifyToken as hub.verify_token",
      );
    res.type('text/plain').send(challenge);
  };
  const taken = (res: Response) => void res.status(200).json({ success: true });
  for (const provider of ['whatsapp', 'messenger', 'instagram'] as const) {
    route(v1, `/channels/${provider}/:accountId/webhook`, {
      get: handshake(provider),
      post: [raw, take(provider, 'webhook', taken)],
    });
  }
}
