import type { OpeningPrice } from '../../answers.js';
import { call } from '../../api.js';
import { CREDITS_PATH } from '../../components/balance.js';
import { Link } from '../../router.js';
import { bodyOf, type Draft } from './campaign.js';
import { plural } from './reach.js';

/**
 * What the opening messages a campaign is about to send cost, against the balance that pays for them: before it
 * goes Live (and before the contacts already on its list are messaged) the team is told when the balance cannot
 * pay, with the numbers, since openings it cannot pay for fail.
 */

/** The price of one opening as the form holds it now (POST /v1/campaigns/opening-price); undefined when unread. */
export async function quoteOpening(d: Draft): Promise<OpeningPrice | undefined> {
  const { channel, openingMessage } = bodyOf(d);
  const res = await call<OpeningPrice>('POST', '/v1/campaigns/opening-price', { channel, openingMessage });
  return res.ok ? res.data : undefined;
}

/** Whether the balance cannot pay for `contacts` openings at this price. */
export const cannotPay = (cost: OpeningPrice | undefined, contacts: number): cost is OpeningPrice =>
  cost !== undefined && cost.charged && cost.price > 0 && cost.balance < cost.price * Math.max(1, contacts);

/** Going Live with no contact on the list yet, at a balance that pays for no opening: what new contacts will meet. */
export const emptyListWarning = (cost: OpeningPrice) =>
  `Your balance, ${plural(cost.balance, 'credit', 'credits')}, cannot pay for an opening message (${plural(cost.price, 'credit', 'credits')} each): ` +
  'the openings of contacts added to the list fail until credits are granted. Save again to go Live anyway.';

/**
 * "Your balance, 0 credits, cannot pay for these opening messages: 17 contacts × 1 credit = 17 credits." Nothing
 * when it can. `atLeast`: the list holds more contacts than were counted.
 */
export function CostWarning(props: { cost?: OpeningPrice; contacts: number; atLeast?: boolean }) {
  const { cost, contacts } = props;
  if (!cannotPay(cost, contacts)) return null;
  const total = cost.price * contacts;
  const paid = Math.floor(cost.balance / cost.price);
  return (
    <p class="warning" data-warning="credits" id="cost-warning">
      Your balance, {plural(cost.balance, 'credit', 'credits')}, cannot pay for these opening messages:{' '}
      {props.atLeast ? 'at least ' : ''}
      {plural(contacts, 'contact', 'contacts')} × {plural(cost.price, 'credit', 'credits')} ={' '}
      {plural(total, 'credit', 'credits')}.{' '}
      {paid > 0 ? `Only ${plural(paid, 'opening', 'openings')} can be paid for: the others fail` : 'They fail'} until
      credits are granted; then retry them from this campaign’s page. <Link href={CREDITS_PATH}>See your credits</Link>
    </p>
  );
}
