import type { Gateway } from '../context.js';
import { clockNow } from '../clock.js';
import { forbidden, notFound } from '../errors.js';
import type { JobResult, Reader, Tx } from '../store/store.js';
import { findByEmail, toCredits, type Account, type AutoRecharge } from './accounts.js';
import { newJob, type JobKinds } from './job-kinds.js';
import type { EventPayload } from './events.js';
import { creditsChanged } from './credit-changes.js';
import { emit, queueDelivery, type Delivery } from './webhooks.js';
import type { autoRechargeAnswer } from '../contract/credits.js';
import type { Answer } from '../contract/shared.js';

type UnheardRequest = JobKinds['auto_recharge_unheard'];

export const publicAutoRecharge = (a?: AutoRecharge) =>
  a
    ? {
        enabled: a.enabled,
        threshold: toCredits(a.thresholdCents),
        amount: toCredits(a.amountCents),
        pending: a.pending,
      }
    : null;

/**
 * The key of one request: every receiver of it and every retry of its delivery carry the same, so a request granted
 * with it is granted once; a request asked again is the next of the sequence, so its grant is not taken for the
 * earlier one's.
 */
export const rechargeKey = (subId: string, sequence: number) => `ar_${subId}_${sequence}`;

/** Emits the event when due, or re-arms; called in every transaction that changes a balance or the rule. */
export async function checkAutoRecharge(tx: Tx, subId: string): Promise<void> {
  const sub = await tx.get<Account>('accounts', subId);
  const rule = sub?.autoRecharge;
  if (!sub || !rule || !sub.parentId) return;
  const below = sub.balanceCents < rule.thresholdCents;
  if (!below && rule.pending)
    await tx.update<Account>('accounts', sub.id, { autoRecharge: { ...rule, pending: false } });
  if (!below || rule.pending || !rule.enabled) return;
  const agency = await tx.get<Account>('accounts', sub.parentId);
  if (agency) await askForRecharge(tx, agency, sub, rule);
}

/** Sends the agency the next request of the sequence, and the job that asks again should no receiver take it. */
async function askForRecharge(tx: Tx, agency: Account, sub: Account, rule: AutoRecharge): Promise<void> {
  const sequence = rule.sequence + 1;
  await tx.update<Account>('accounts', sub.id, { autoRecharge: { ...rule, sequence, pending: true } });
  // The agency's console shows the request waiting.
  creditsChanged(tx, sub.id, agency.id);
  const deliveries = await emit(tx, agency, 'auto_recharge', requestEvent(sub, rule, sequence));
  await watchRequest(tx, agency.id, { subAccountId: sub.id, sequence, deliveryIds: deliveries.map((d) => d.id) });
}

/** Request `sequence` of a sub-account, as each of its receivers gets it. */
const requestEvent = (sub: Account, rule: AutoRecharge, sequence: number): EventPayload<'auto_recharge'> => ({
  type: 'auto_recharge',
  idempotency_key: rechargeKey(sub.id, sequence),
  sub_account_id: sub.id,
  sub_account_email: sub.email,
  balance: toCredits(sub.balanceCents),
  threshold: toCredits(rule.thresholdCents),
  amount: toCredits(rule.amountCents),
});

/**
 * A receiver of `auto_recharge` that begins to hear (subscribed, or enabled again: an n8n workflow activated again)
 * hears at once the agency's requests still waiting, each under its own key, so a receiver that took one already
 * grants it once: one asked while no receiver heard would otherwise wait for the whole retry schedule to be asked
 * again, its sub-account running dry meanwhile. Each is then watched by this delivery: taken, it waits for its grant;
 * missed again, it is asked again once the schedule has run from now.
 */
export async function tellWaitingRequests(
  tx: Tx,
  agency: Account,
  receiver: { target: string; url: string },
): Promise<void> {
  for (const sub of await tx.find<Account>('accounts', 'parentId', [agency.id])) {
    const rule = sub.autoRecharge;
    if (!rule?.pending) continue;
    const request = requestEvent(sub, rule, rule.sequence);
    const delivery = await queueDelivery(tx, agency.id, 'auto_recharge', request, null, receiver);
    await tx.cancelJobs(unheardKey(sub.id, rule.sequence));
    await watchRequest(tx, agency.id, { subAccountId: sub.id, sequence: rule.sequence, deliveryIds: [delivery.id] });
  }
}

const unheardKey = (subId: string, sequence: number) => `auto_recharge_unheard:${subId}:${sequence}`;

/** Queues the look at a request once its deliveries are settled: one per request, however often it is watched. */
export async function watchRequest(tx: Tx, agencyId: string, request: Omit<UnheardRequest, 'askedAt'>): Promise<void> {
  await tx.enqueue(
    newJob(
      'auto_recharge_unheard',
      { ...request, askedAt: clockNow() },
      { key: unheardKey(request.subAccountId, request.sequence), accountId: agencyId },
    ),
  );
}

/**
 * A request that no receiver took (each delivery failed for good, or the agency had no `auto_recharge` subscriber)
 * would leave the rule waiting for a grant that nobody was asked for, and the sub-account running dry. Once its
 * deliveries are settled, such a request is withdrawn and asked again, with the next key; never sooner than the
 * delivery retry schedule after it was asked, so a receiver that refuses at once hears no more often than one that is
 * down. A request a receiver took waits for its grant.
 */
export async function askAgainIfUnheard(gw: Gateway, request: UnheardRequest): Promise<JobResult> {
  if (!(await stillWaiting(gw.store, request))) return;
  const deliveries = await deliveriesOf(gw.store, request);
  if (deliveries.some((d) => d.status === 'sent')) return;
  const due = request.askedAt + gw.config.webhookRetryDelaysMs.reduce((sum, ms) => sum + ms, 0);
  if (clockNow() < due) return { later: due };
  // A delivery still trying past the schedule (a receiver's Retry-After) gets its answer first, up to a bound: one
  // whose job is gone is no answer, and the request is not left waiting on it.
  const inFlight = deliveries.filter((d) => d.status === 'pending');
  const giveUpAt = due + STUCK_MS;
  if (inFlight.length > 0 && clockNow() < giveUpAt) return { later: answeredBy(gw, inFlight, giveUpAt) };
  await gw.store.transact(async (tx) => {
    // Grants and spends of one balance take turns on it.
    await tx.lock<Account>('accounts', request.subAccountId);
    if (await stillWaiting(tx, request)) await withdrawRequest(tx, request.subAccountId);
  });
}

/** Whether the sub-account's rule still waits for this request's grant. */
async function stillWaiting(r: Reader, request: UnheardRequest): Promise<boolean> {
  const rule = (await r.get<Account>('accounts', request.subAccountId))?.autoRecharge;
  return rule?.pending === true && rule.sequence === request.sequence;
}

const deliveriesOf = async (r: Reader, request: UnheardRequest): Promise<Delivery[]> =>
  (await Promise.all(request.deliveryIds.map((id) => r.get<Delivery>('deliveries', id)))).filter(
    (d): d is Delivery => d !== undefined,
  );

/** How long past the retry schedule a delivery still trying may keep a request waiting. */
const STUCK_MS = 60 * 60_000;

/** When the deliveries still trying will have had their next attempt answered; `giveUpAt` for one with none due. */
const answeredBy = (gw: Gateway, inFlight: Delivery[], giveUpAt: number): number =>
  Math.min(
    giveUpAt,
    Math.max(...inFlight.map((d) => (d.nextAttemptAt ? Date.parse(d.nextAttemptAt) : giveUpAt))) +
      gw.config.webhookTimeoutMs,
  );

/**
 * After a grant: one made with the key of the request waiting is that request's answer, which ends it; a balance
 * still below the threshold then asks at once for the next, under the next key, as the rule says (below it, add the
 * amount), where it would wait for good: nobody else would grant it. Any other grant leaves the request waiting.
 */
export async function afterGrant(tx: Tx, subId: string, key: string | undefined): Promise<void> {
  const rule = (await tx.get<Account>('accounts', subId))?.autoRecharge;
  if (rule?.pending && key === rechargeKey(subId, rule.sequence)) await withdrawRequest(tx, subId);
  else await checkAutoRecharge(tx, subId);
}

/** Ends the request waiting, and asks anew when the balance is still below the threshold of an enabled rule. */
async function withdrawRequest(tx: Tx, subId: string): Promise<void> {
  const rule = (await tx.get<Account>('accounts', subId))?.autoRecharge;
  if (!rule) return;
  await tx.update<Account>('accounts', subId, { autoRecharge: { ...rule, pending: false } });
  await checkAutoRecharge(tx, subId);
}

/**
 * Saving the rule starts it afresh: a request still waiting is withdrawn, and a balance already below the threshold
 * of an enabled rule is asked for at once, with the next key. So an agency whose receiver missed a request, or took
 * it and failed to grant, asks again by saving the rule.
 */
export async function setAutoRecharge(
  gw: Gateway,
  agency: Account,
  input: { email: string; enabled: boolean; threshold: number; amount: number },
): Promise<Answer<typeof autoRechargeAnswer>> {
  if (agency.type !== 'agency')
    throw forbidden('NOT_AGENCY', 'Only agency accounts can set auto-recharge for sub-accounts');
  return gw.store.transact(async (tx) => {
    const found = await findByEmail(tx, input.email);
    // Grants and spends of one balance take turns on it.
    const sub = found && (await tx.lock<Account>('accounts', found.id));
    if (!sub || sub.parentId !== agency.id) throw notFound('Sub-account', `Sub-account ${input.email} not found`);
    await tx.update<Account>('accounts', sub.id, {
      autoRecharge: {
        enabled: input.enabled,
        thresholdCents: Math.round(input.threshold * 100),
        amountCents: Math.round(input.amount * 100),
        sequence: sub.autoRecharge?.sequence ?? 0,
        pending: false,
      },
    });
    await checkAutoRecharge(tx, sub.id);
    const saved = (await tx.get<Account>('accounts', sub.id))!;
    return {
      sub_account_id: sub.id,
      balance: toCredits(saved.balanceCents),
      autoRecharge: publicAutoRecharge(saved.autoRecharge),
    };
  });
}
