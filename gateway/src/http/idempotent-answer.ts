import type { Request, Response } from 'express';
import type { Gateway } from '../context.js';
import { idempotent } from '../domain/idempotency.js';
import type { Tx } from '../store/store.js';

/**
 * A creation or a send a client may make again with its Idempotency-Key after an answer that never arrived: `make`
 * performs it, keeping its answer (`keep`) in its own transaction; the same key, method, path and body again get that
 * answer again, with `Idempotent-Replayed: true`, and perform nothing (domain/idempotency.ts). Answers the status and
 * the body to send.
 */
export async function idempotentAnswer<T>(
  gw: Gateway,
  req: Request,
  res: Response,
  accountId: string,
  status: number,
  make: (keep: (tx: Tx, answer: NoInfer<T>) => Promise<void>) => Promise<T>,
): Promise<{ status: number; response: T }> {
  // The key names one request: the same body sent to another contact, list or endpoint is another request (422),
  // never the first one's answer.
  const request = { target: `${req.method} ${req.originalUrl.split('?')[0]}`, body: req.body as unknown };
  const answer = await idempotent(gw, accountId, req.get('idempotency-key'), request, async (remember) => ({
    status,
    response: await make((tx, made) => remember(tx, status, made)),
  }));
  if (answer.replayed) res.set('Idempotent-Replayed', 'true');
  return { status: answer.status, response: answer.response as T };
}
