import { useState } from 'preact/hooks';
import type { Credits } from '../answers.js';
import { get } from '../api.js';
import { useLiveReload } from '../live-reload.js';
import { Link } from '../router.js';

/**
 * The account's credits, read when the page opens and again when the stream tells they changed (a grant, a
 * recharge, a spend under the low-balance threshold), so a warning comes and goes without a page change.
 */
export function useCredits(): Credits | undefined {
  const [credits, setCredits] = useState<Credits | undefined>(undefined);
  useLiveReload(
    async () => {
      const res = await get<Credits>('/v1/credits?transactions=false');
      if (res.ok) setCredits(res.data);
    },
    [],
    { concerns: (e) => e.event === 'credits.updated' },
  );
  return credits;
}

const n = (v: number) => v.toLocaleString('en-US', { maximumFractionDigits: 2 });
const creditsText = (v: number) => `${n(v)} ${v === 1 ? 'credit' : 'credits'}`;

export const CREDITS_PATH = '/console/credits';

/**
 * A sub-account whose balance pays for none of its messages is told so on every page, with what fails, what the bot
 * does instead and who grants credits. One whose balance is under the threshold it set is warned before that.
 */
export function BalanceBanner(props: { credits?: Credits }) {
  const c = props.credits;
  if (!c || !c.prices) return null;
  const who = c.agency ? `your agency, ${c.agency.name} (${c.agency.email})` : 'your agency';
  if (c.canSend === false) {
    return (
      <p class="warning banner" role="alert" data-banner="empty">
        Your balance is {creditsText(c.balance)}: SMS ({n(c.prices.smsSegment)} a segment), WhatsApp (
        {n(c.prices.whatsapp)} a message), Messenger ({n(c.prices.messenger)}) and Instagram messages (
        {n(c.prices.instagram)}) fail until credits are granted, and the bot, whose replies cost {n(c.prices.botReply)}{' '}
        each, hands the contacts who write to your team instead of answering. Credits are granted by {who}: ask for
        them, then retry the failed messages from the Inbox. <Link href={CREDITS_PATH}>See your credits</Link>
      </p>
    );
  }
  if (!c.lowBalance || c.lowBalanceThreshold === null) return null;
  return (
    <p class="warning banner" role="status" data-banner="low">
      Your balance is {creditsText(c.balance)}, under your warning threshold of {n(c.lowBalanceThreshold)}. Messages
      fail once it runs out: ask {who} for credits. <Link href={CREDITS_PATH}>See your credits</Link>
    </p>
  );
}
