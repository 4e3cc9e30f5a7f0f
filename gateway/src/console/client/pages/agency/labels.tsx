import type { AutoRechargeRule } from '../../answers.js';

/** Credits as the agency pages write them: two decimal places, in the reader's locale. */
export const credits = (n: number) =>
  n.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A sub-account's auto-recharge rule in words: off, or below what it adds how much. */
export const ruleText = (rule: AutoRechargeRule | null | undefined) =>
  !rule || !rule.enabled
    ? 'Off'
    : `Below ${credits(rule.threshold)}, add ${credits(rule.amount)}${rule.pending ? ' (requested)' : ''}`;
