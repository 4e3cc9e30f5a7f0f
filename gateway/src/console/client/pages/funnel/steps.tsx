/** The funnel's steps as GET /v1/campaigns/{id}/funnel names them, with their labels and chart colours. */
export const STEPS = [
  { key: 'added', label: 'Added', colour: '#0b5cad' },
  { key: 'openingSent', label: 'Opening sent', colour: '#1d6b35' },
  { key: 'replied', label: 'Replied', colour: '#7a3e9d' },
  { key: 'handedOff', label: 'Handed off', colour: '#a35200' },
  { key: 'optedOut', label: 'Opted out', colour: '#4f5965' },
  { key: 'goalReached', label: 'Goal reached', colour: '#00707a' },
  { key: 'failed', label: 'Failed', colour: '#a4161a' },
] as const;

export type StepKey = (typeof STEPS)[number]['key'];
export type StepCounts = Record<StepKey, number>;

export interface Funnel {
  campaignId: string;
  from: string;
  to: string;
  timezone: string;
  totals: StepCounts;
  days: Array<{ date: string } & StepCounts>;
}
