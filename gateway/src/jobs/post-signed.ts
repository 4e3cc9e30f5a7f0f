import http from 'node:http';
import https from 'node:https';
import type { Gateway } from '../context.js';
import { signatureHeaders } from '../domain/signature.js';
import { guardedLookup, mayShowAnswer, refuseConnection, TargetRefusedError } from '../outbound/target-policy.js';

/** What a receiver answered: its status, headers and the start of its body (deliveries keep an excerpt). */
export interface ReceiverAnswer {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  /** Null when the answer came from an address its tenant may not be shown an answer from (see `mayShowAnswer`). */
  body: string | null;
}

/** The part of a receiver's body that is kept, and read: the answer is taken once it came. */
const BODY_KEPT = 4096;

/**
 * Connections to receivers are kept open between deliveries: a receiver gets a stream of events, and a TLS
 * handshake per event would cost more than the event. One idle for 4 s is closed, before a receiver's own idle
 * timeout (5 s in Node's server) could close it under the next delivery.
 */
const reused = { keepAlive: true, timeout: 4_000 };
const agents = { 'http:': new http.Agent(reused), 'https:': new https.Agent(reused) };

/**
 * One signed POST of a webhook event to a receiver, as every delivery and the test event make it: Standard Webhooks
 * headers, the configured timeout, no retry (the caller decides), no redirect, and the target policy held at connect
 * time, even when a name resolves to an address the policy refuses; the answer's body only when it came from an address
 * its tenant may be shown it from. Node's own client, not got: this is the hot path of every subscription, and one
 * request here costs a third of got's.
 */
export function postSigned(
  gw: Gateway,
  url: string,
  event: { id: string; type: string; body: string; secrets: string[] },
): Promise<ReceiverAnswer> {
  const target = new URL(url);
  const policy = gw.config.targetPolicy;
  const refused = refuseConnection(policy, target);
  if (refused) return Promise.reject(new TargetRefusedError(refused));
  const body = Buffer.from(event.body);
  const timeoutMs = gw.config.webhookTimeoutMs;
  return new Promise((resolve, reject) => {
    const req = (target.protocol === 'https:' ? https : http).request(
      target,
      {
        method: 'POST',
        agent: agents[target.protocol as keyof typeof agents],
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          'user-agent': 'LeadChat-Webhooks/1',
          'webhook-event': event.type,
          ...signatureHeaders(event.secrets, event.id, event.body),
        },
        ...(policy.kind === 'public' ? { lookup: guardedLookup as never } : {}),
      },
      (res) => {
        // The address connected to, read now: a socket kept alive is handed to the next request once this one ends.
        const shown = mayShowAnswer(policy, res.socket.remoteAddress);
        const kept: Buffer[] = [];
        let size = 0;
        const answer = () => {
          clearTimeout(timer);
          const text = shown ? Buffer.concat(kept).subarray(0, BODY_KEPT).toString('utf8') : null;
          resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: text });
        };
        res.on('data', (chunk: Buffer) => {
          if (shown) kept.push(chunk);
          size += chunk.length;
          // The rest is not read: a long answer would hold the delivery until the timeout, and count as none.
          if (size >= BODY_KEPT) {
            answer();
            res.destroy();
          }
        });
        res.on('end', answer);
        res.on('error', fail);
        res.on('close', () => {
          if (!res.complete && size < BODY_KEPT)
            fail(Object.assign(new Error('The receiver closed the connection mid-answer'), { code: 'ECONNRESET' }));
        });
      },
    );
    const timer = setTimeout(
      () =>
        req.destroy(Object.assign(new Error(`Timeout awaiting 'request' for ${timeoutMs}ms`), { code: 'ETIMEDOUT' })),
      timeoutMs,
    );
    function fail(err: Error) {
      clearTimeout(timer);
      reject(err);
    }
    req.on('error', fail);
    req.end(body);
  });
}

/** Why a receiver gave no answer, in the words deliveries record. */
export function noAnswer(gw: Gateway, err: unknown): string {
  const e = err as { code?: string; message?: string };
  return e.code === 'ETIMEDOUT'
    ? `Receiver did not answer within ${gw.config.webhookTimeoutMs} ms`
    : `${e.code ?? 'ERROR'}: ${e.message}`;
}
