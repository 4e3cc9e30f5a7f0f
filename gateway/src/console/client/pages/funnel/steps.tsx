import { FUNNEL_STEPS, type FunnelStep } from '../../../../api-contract.js';

/** Each funnel step's label and chart colour: a step the server adds is missing here until it has its own. */
const LOOK: Record<FunnelStep, { label: string; colour: string }> = {
  added: { label: 'Added', colour: '#0b5cad' },
  openingSent: { label: 'Opening sent', colour: '#1d6b35' },
  replied: { label: 'Replied', colour: '#7a3e9d' },
  handedOff: { label: 'Handed off', colour: '#a35200' },
  optedOut: { label: 'Opted out', colour: '#4f5965' },
  goalReached: { label: 'Goal reached', colour: '#00707a' },
  failed: { label: 'Failed', colour: '#a4161a' },
};

/** The funnel's steps in the server's order (GET /v1/campaigns/{id}/funnel), with their labels and chart colours. */
export const STEPS = FUNNEL_STEPS.map((key) => ({ key, ...LOOK[key] }));
