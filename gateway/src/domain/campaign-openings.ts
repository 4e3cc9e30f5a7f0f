import type { Config } from '../config.js';
import type { Reader } from '../store/store.js';
import { getAccount, toCredits } from './accounts.js';
import { getCampaign } from './campaigns.js';
import { countFailedOpenings } from './failed-openings.js';
import { personalize } from './personalize.js';
import { priceOf } from './prices.js';
import type { campaignOpenings } from '../contract/campaigns.js';
import type { Answer } from '../contract/shared.js';

const NO_FIELDS = { firstName: null, lastName: null, email: null, phone: null };

/**
 * What a campaign's opening messages cost and how they fared (GET /v1/campaigns/{id}/openings): the price of one,
 * as the opening reads with no contact's fields filled in (a first name may add an SMS segment), the balance that
 * pays for them, and those failed now. The console warns before going Live when the balance cannot pay for the
 * list, and the campaign's page counts the failures.
 */
export async function openingsReport(r: Reader, accountId: string, campaignId: string, prices: Config['prices']): Promise<Answer<typeof campaignOpenings>> {
  const campaign = await getCampaign(r, accountId, campaignId);
  const account = await getAccount(r, accountId);
  const body = personalize(campaign.openingMessage ?? '', NO_FIELDS);
  const price = await priceOf(prices, account, campaign.channel, { author: 'campaign', body });
  return {
    campaignId: campaign.id,
    price: toCredits(price),
    balance: toCredits(account.balanceCents),
    charged: account.parentId !== null,
    failed: await countFailedOpenings(r, campaign.id),
  };
}
