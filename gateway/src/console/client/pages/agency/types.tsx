/** What GET /v1/subaccounts and GET /v1/subaccounts/{id}/credits answer. */
export interface AutoRechargeRule {
  enabled: boolean;
  threshold: number;
  amount: number;
  pending: boolean;
}

export interface SubAccount {
  id: string;
  name: string;
  email: string;
  balance: number;
  autoRecharge: AutoRechargeRule | null;
  createdAt: string;
}

export interface CreditHistory {
  balance: number;
  autoRecharge?: AutoRechargeRule | null;
  transactions: Array<{ id: string; kind: 'grant' | 'usage'; amount: number; balance: number; description: string | null; createdAt: string }>;
}

export const credits = (n: number) => n.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export const ruleText = (rule: AutoRechargeRule | null | undefined) =>
  !rule || !rule.enabled ? 'Off' : `Below ${credits(rule.threshold)}, add ${credits(rule.amount)}${rule.pending ? ' (requested)' : ''}`;
