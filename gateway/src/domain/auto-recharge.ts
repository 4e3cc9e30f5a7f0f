import type { Gateway } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import type { Tx } from '../store/store.js';
import { findByEmail, toCredits, type Account, type AutoRecharge } from './accounts.js';
import { emit } from './webhooks.js';
import type { autoRechargeAnswer } from '../contract/credits.js';
import type { Answer } from '../contract/shared.js';

export const publicAutoRecharge = (a?: AutoRecharge) =>
  a
    ? {
        enabled: a.enabled,
        threshold: toCredits(a.thresholdCents),
        amount: toCredits(a.amountCents),
        pending: a.pending,
      }
    : null;

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
  if (!agency) return;
  const sequence = rule.sequence + 1;
  await tx.update<Account>('accounts', sub.id, { autoRecharge: { ...rule, sequence, pending: true } });
  await emit(tx, agency, 'auto_recharge', {
    type: 'auto_recharge',
    idempotency_key: `ar_${sub.id}_${sequence}`,
    sub_account_id: sub.id,
    sub_account_email: sub.email,
    balance: toCredits(sub.balanceCents),
    threshold: toCredits(rule.thresholdCents),
    amount: toCredits(rule.amountCents),
  });
}

export async function setAutoRecharge(
  gw: Gateway,
  agency: Account,
  input: { email: string; enabled: boolean; threshold: number; amount: number },
): Promise<Answer<typeof autoRechargeAnswer>> {
  if (agency.type !== 'agency')
    throw forbidden('NOT_AGENCY', 'Only agency accounts can set auto-recharge for sub-accounts');
  return gw.store.transact(async (tx) => {
    const sub = await findByEmail(tx, input.email);
    if (!sub || sub.parentId !== agency.id) throw notFound('Sub-account', `Sub-account ${input.email} not found`);
    const previous = sub.autoRecharge;
    await tx.update<Account>('accounts', sub.id, {
      autoRecharge: {
        enabled: input.enabled,
        thresholdCents: Math.round(input.threshold * 100),
        amountCents: Math.round(input.amount * 100),
        sequence: previous?.sequence ?? 0,
        pending: previous?.pending ?? false,
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
