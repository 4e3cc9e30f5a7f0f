import type { Config } from '../config.js';
import type { Reader } from '../store/store.js';
import { getAccount, toCredits, type Account } from './accounts.js';
import { getCampaign, type Campaign } from './campaigns.js';
import { countFailedOpenings } from './failed-openings.js';
import { personalize } from './personalize.js';
import { priceOf } from './prices.js';
import type { campaignOpenings, openingPrice } from '../contract/campaigns.js';
import type { Answer } from '../contract/shared.js';

const NO_FIELDS = { firstName: null, lastName: null, email: null, phone: null };

/**
 * What a campaign's opening messages cost and how they fared (GET /v1/campaigns/{id}/openings): the price of one,
 * as the opening reads with no contact's fields filled in (a first name may add an SMS segment), the balance that
 * pays for them, and those failed now. The console warns before going Live when the balance cannot pay for the
 * list, and the campaign's page counts the failures.
 */
export async function openingsReport(
  r: Reader,
  accountId: string,
  campaignId: string,
  prices: Config['prices'],
): Promise<Answer<typeof campaignOpenings>> {
  const campaign = await getCampaign(r, accountId, campaignId);
  const account = await getAccount(r, accountId);
  return {
    campaignId: campaign.id,
    ...(await costOf(account, campaign, prices)),
    failed: await countFailedOpenings(r, campaign.id),
  };
}

/** What an opening message like this one would cost (POST /v1/campaigns/opening-price): a campaign's form asks before it saves. */
export async function quoteOpening(
  r: Reader,
  accountId: string,
  opening: Pick<Campaign, 'channel' | 'openingMessage'>,
  prices: Config['prices'],
): Promise<Answer<typeof openingPrice>> {
  return costOf(await getAccount(r, accountId), opening, prices);
}

async function costOf(
  account: Account,
  opening: Pick<Campaign, 'channel' | 'openingMessage'>,
  prices: Config['prices'],
): Promise<Answer<typeof openingPrice>> {
  const body = personalize(opening.openingMessage ?? '', NO_FIELDS);
  const price = await priceOf(prices, account, opening.channel, { author: 'campaign', body });
  return { price: toCredits(price), balance: toCredits(account.balanceCents), charged: account.parentId !== null };
}
