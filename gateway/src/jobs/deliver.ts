import type { Gateway } from '../context.js';
import { metrics } from '../metrics.js';
import { settleDeliveries } from '../engine/message-status.js';
import { receiverNow, type Attempt, type Delivery, type Subscription } from '../domain/webhooks.js';
import { noteAttempt } from '../domain/webhook-health.js';
import { leaveTurn } from '../domain/reply-turns.js';
import { now } from '../ids.js';
import { readAgain, type Job, type JobOutcome, type JobResult } from '../store/store.js';
import type { JobKinds } from '../domain/job-kinds.js';
import type { JobContext } from './queue.js';
import { noAnswer, postSigned } from './post-signed.js';
import { isTargetRefused } from '../outbound/target-policy.js';
import { clockNow } from '../clock.js';
import { withheldFromOptedOut } from '../domain/withheld-replies.js';
import { endDisabledDeliveries } from '../engine/unsubscribe.js';

const RETRYABLE = (status: number) => status === 408 || status === 429 || status >= 500;
const MAX_RETRY_AFTER_MS = 6 * 3_600_000;

/**
 * Posts one delivery to its receiver, signed per Standard Webhooks. 2xx: sent. Network error, timeout, 408,
 * 429 or 5xx: retried on the configured schedule with jitter (or after a longer Retry-After). Other 4xx, or the last
 * attempt: failed. Every attempt is recorded on the delivery.
 */
export async function deliver(gw: JobContext, job: Job<JobKinds['deliver']>): Promise<JobResult> {
  const { deliveryId, target } = job.data;
  // The receiver read with the delivery, when the job names it.
  const [delivery, named] = await Promise.all([
    gw.store.get<Delivery>('deliveries', deliveryId),
    target && job.accountId ? receiverNow(gw.store, { target, accountId: job.accountId }) : undefined,
  ]);
  if (!delivery || delivery.status !== 'pending') return;
  // A reply reaches the contact; an event (message_received, opt_out…) tells the account, whatever the contact said.
  if (delivery.event === 'reply' && delivery.messageId && (await withheldFromOptedOut(gw, delivery.messageId))) return;
  const receiver = (target === delivery.target && named) || (await receiverNow(gw.store, delivery));
  if ('gone' in receiver) return record(gw, job, delivery, delivery.url, failure(receiver.gone));
  const { url, secrets, subscription } = receiver;

  const body = JSON.stringify(delivery.payload);
  const started = clockNow();
  let attempt: Attempt;
  let retryAfterMs: number | undefined;
  try {
    const res = await postSigned(gw, url, { id: delivery.id, type: delivery.event, body, secrets });
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    attempt = {
      at: new Date(started).toISOString(),
      status: res.statusCode,
      latencyMs: clockNow() - started,
      error: ok ? null : `Receiver answered HTTP ${res.statusCode}`,
      responseExcerpt: res.body ? String(res.body).slice(0, 500) : null,
    };
    if (ok) return record(gw, job, delivery, url, attempt, { sent: true, subscription });
    if (!RETRYABLE(res.statusCode)) return record(gw, job, delivery, url, attempt, { subscription });
    retryAfterMs = parseRetryAfter(res.headers['retry-after']);
  } catch (err) {
    attempt = { ...failure(noAnswer(gw, err)), latencyMs: clockNow() - started, at: new Date(started).toISOString() };
    // The operator's policy will refuse the next attempt too.
    if (isTargetRefused(err)) return record(gw, job, delivery, url, attempt, { subscription });
  }
  const delays = gw.config.webhookRetryDelaysMs;
  // A delivery sent again by hand gets the whole schedule anew.
  const retriesDone = delivery.attempts.length - (delivery.roundStart ?? 0);
  if (retriesDone >= delays.length) return record(gw, job, delivery, url, attempt, { subscription });
  // A receiver's Retry-After lengthens the wait, never shortens it: one down behind a proxy that answers every request
  // "503, Retry-After: 0" (or a rate limiter's "1") would otherwise spend the whole schedule in a second.
  const delay = Math.max(retryAfterMs ?? 0, jitter(delays[retriesDone]!));
  return record(gw, job, delivery, url, attempt, { retryAt: clockNow() + delay, subscription });
}

function failure(error: string): Attempt {
  return { at: now(), status: null, latencyMs: 0, error, responseExcerpt: null };
}

/**
 * Records an attempt at `url`, where the delivery then went (an export of the contact lists it): `sent`, waiting for
 * its retry at `retryAt`, or else failed; the job ends (or waits for the retry) in the same commit. One posted to a
 * `subscription` (as read before the post) tells of its health too; one not posted (the receiver gone) tells nothing
 * of it.
 */
async function record(
  gw: Gateway,
  job: Job,
  delivery: Delivery,
  url: string,
  attempt: Attempt,
  { sent = false, retryAt, subscription }: { sent?: boolean; retryAt?: number; subscription?: Subscription } = {},
): Promise<JobResult> {
  const retry = retryAt !== undefined;
  const status: Delivery['status'] = sent ? 'sent' : retry ? 'pending' : 'failed';
  const outcome: JobOutcome = retry ? { retryAt } : { done: true };
  let disabled: Subscription | undefined;
  // A reply's deliveries decide its status (spec §3.1); an event that only names a message (message_received) does not.
  const reply = delivery.event === 'reply' ? delivery.messageId : null;
  await gw.store.transact(async (tx) => {
    disabled = undefined;
    // The message first: deliveries of one reply settling at once, in any process, take turns on it, so that each
    // decides the message's status from the others' outcomes as they are.
    if (reply) await tx.lock('messages', reply);
    // As read before the post, when the store can check at the write that it is unchanged since.
    const current = await readAgain(tx, 'deliveries', delivery);
    // The job ends with the attempt it recorded, in one commit.
    await tx.settle(job, outcome);
    if (!current || current.status !== 'pending') return;
    tx.afterCommit(() => metrics.deliveries.inc({ event: delivery.event, outcome: retry ? 'retry' : status }));
    const nextAttemptAt = retryAt !== undefined ? new Date(retryAt).toISOString() : null;
    await tx.update<Delivery>('deliveries', delivery.id, {
      status,
      url,
      attempts: [...current.attempts, attempt],
      nextAttemptAt,
      // Named again on a retry: one an earlier release stored named none.
      pendingTarget: retry ? current.target : null,
      updatedAt: now(),
      // Sent, or failed for good: the conversation's next reply to this receiver goes.
      ...(retry ? {} : await leaveTurn(tx, current)),
    });
    if (reply) await settleDeliveries(tx, reply);
    disabled = subscription ? await noteAttempt(tx, subscription, attempt, sent) : undefined;
  });
  if (disabled) {
    gw.log.warn(
      { webhook: disabled.id, account: disabled.accountId, reason: disabled.disabledReason },
      'webhook subscription disabled',
    );
    // Its other deliveries (and this one, when it was to be retried) would only fail when their retries come due.
    await endDisabledDeliveries(gw, disabled.id);
  }
  if (status === 'failed')
    gw.log.warn({ delivery: delivery.id, event: delivery.event, error: attempt.error }, 'delivery failed');
  return { settled: outcome };
}

/** ±20 %, so receivers that recover are not hit by every sender at once. */
const jitter = (ms: number) => Math.round(ms * (0.8 + Math.random() * 0.4));

function parseRetryAfter(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const ms = /^\d+$/.test(value.trim()) ? Number(value) * 1000 : Date.parse(value) - clockNow();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : undefined;
}
