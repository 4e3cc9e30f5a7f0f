import { useEffect, useState } from 'preact/hooks';
import type { Credits } from '../answers.js';
import { get } from '../api.js';

/** The account's credits, read again on each page the user opens (`page`), so a grant shows on the next one. */
export function useCredits(page: string | undefined): Credits | undefined {
  const [credits, setCredits] = useState<Credits | undefined>(undefined);
  useEffect(() => void get<Credits>('/v1/credits').then((res) => res.ok && setCredits(res.data)), [page]);
  return credits;
}

const n = (v: number) => v.toLocaleString('en-US', { maximumFractionDigits: 2 });

/**
 * A sub-account whose balance pays for none of its messages is told so on every page, with what fails and who
 * grants credits: otherwise every bot answer fails in silence.
 */
export function BalanceBanner(props: { credits?: Credits }) {
  const c = props.credits;
  if (!c || c.canSend !== false || !c.prices) return null;
  const who = c.agency ? `your agency, ${c.agency.name} (${c.agency.email})` : 'your agency';
  return (
    <p class="warning banner" role="alert">
      Your balance is {n(c.balance)} credits: bot replies ({n(c.prices.botReply)} each), SMS ({n(c.prices.smsSegment)} a segment) and
      WhatsApp messages ({n(c.prices.whatsapp)} each) fail until credits are granted. Credits are granted by {who}: ask for
      them, then retry the failed messages from the Inbox.
    </p>
  );
}
