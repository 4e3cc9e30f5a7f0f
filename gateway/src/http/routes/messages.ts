import { fileName, mediaRecord, readMedia } from '../../domain/media.js';
import { messageAndDeliveries, publicMessage, type Message } from '../../domain/messages.js';
import type { Contact } from '../../domain/contacts.js';
import { sendMessage } from '../../engine/outgoing.js';
import type { Engine } from '../../engine/ports/providers.js';
import { messageOfPost, receiveMessage } from '../../engine/receive.js';
import { retryMessage } from '../../engine/retry.js';
import { byteRange } from '../byte-range.js';
import { jsonBody } from '../middleware/json-body.js';
import { idempotentAnswer } from '../idempotent-answer.js';
import { accountOf, parse, route, sendDurable, type Routes } from '../route.js';
import { incomingMessage, sendMessage as sendSchema } from '../schemas.js';
import type { incomingReceived, sent } from '../../contract/messages.js';
import type { Answer } from '../../contract/shared.js';

export function messagesRoutes(v1: Routes, gw: Engine): void {
  // The limit is the file's, held once it is decoded. Base64 grows it by a third, and JSON may take two bytes for
  // each of its characters (PHP writes every slash "\/"; MIME wraps it in lines, each end a "\r\n"); the text and the
  // other fields take up to six bytes a character as \u escapes.
  const incomingLimit = 2 * Math.ceil((gw.config.maxMediaBytes * 4) / 3) + 128 * 1024;

  route(v1, '/incoming_custom_channel_message', {
    post: [
      jsonBody(incomingLimit),
      async (req, res) => {
        // The custom channel's adapter reads the post into a message; it is stored before the answer, which names it.
        const account = accountOf(res);
        const adapter = gw.providers.customChannel(gw.config, account);
        const incoming = await messageOfPost(adapter, parse(incomingMessage, req.body));
        const { message } = await receiveMessage(gw, account, incoming, adapter.readFile);
        res.json({ success: true, messageId: message.id } satisfies Answer<typeof incomingReceived>);
      },
    ],
  });

  route(v1, '/send_custom_channel_message', {
    post: [
      jsonBody(),
      async (req, res) => {
        const { customData } = parse(sendSchema, req.body);
        const account = accountOf(res);
        const answer = ({ message, contact }: { message: Message; contact: Contact }): Answer<typeof sent> => {
          const failed = message.status === 'failed';
          return {
            success: !failed,
            messageId: message.id,
            contactId: contact.id,
            message: failed
              ? `Message not sent (${message.errorCode}): ${message.error}; retry it with POST /v1/messages/${message.id}/retry`
              : `Message queued for delivery on ${customData.customChannel}`,
            errorCode: failed ? message.errorCode : null,
          };
        };
        // A message whose answer was lost, sent again with its Idempotency-Key, reaches the contact once.
        const { status, response } = await idempotentAnswer(gw, req, res, account.id, 200, async (keep) =>
          answer(await sendMessage(gw, account, customData, (tx, made) => keep(tx, answer(made)))),
        );
        res.status(status).json(response);
      },
    ],
  });

  route(v1, '/messages/:id', {
    get: async (req, res) => {
      const { message, deliveries } = await messageAndDeliveries(gw.store, accountOf(res).id, String(req.params.id));
      await sendDurable(gw, res, publicMessage(message, deliveries));
    },
  });

  route(v1, '/messages/:id/retry', {
    post: async (req, res) => {
      const { message, deliveries } = await retryMessage(gw, accountOf(res).id, String(req.params.id));
      res.json(publicMessage(message, deliveries));
    },
  });

  route(v1, '/media/:id', {
    get: async (req, res) => {
      const media = await mediaRecord(gw, accountOf(res).id, String(req.params.id));
      const part = byteRange(req, media.size);
      const bytes = await readMedia(gw, media, part);
      if (part) res.status(206).set('Content-Range', `bytes ${part.start}-${part.end}/${media.size}`);
      res
        .attachment(fileName(media))
        .set({
          'Content-Type': media.contentType,
          'Accept-Ranges': 'bytes',
          'X-Content-Type-Options': 'nosniff',
          // A contact's page or drawing (text/html, image/svg+xml) opened in the browser is shown, never run.
          'Content-Security-Policy': "sandbox; default-src 'none'",
          // Nor kept by the browser that read it: an erased contact's photo is left in no agent's disk cache.
          'Cache-Control': 'private, no-store',
        })
        .send(bytes);
    },
  });
}
