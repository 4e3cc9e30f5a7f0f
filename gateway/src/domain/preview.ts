import type { Reader } from '../store/store.js';
import { getCampaign } from './campaigns.js';
import { addressOf, getContact } from './contacts.js';
import { personalize } from './personalize.js';
import { openingTemplateFor } from './whatsapp.js';
import type { openingPreview } from '../contract/campaigns.js';
import type { Answer } from '../contract/shared.js';

/** The campaign's opening message as this contact would get it, and where it would go. */
export async function previewOpening(
  r: Reader,
  accountId: string,
  campaignId: string,
  contactId: string,
): Promise<Answer<typeof openingPreview>> {
  const campaign = await getCampaign(r, accountId, campaignId);
  const contact = await getContact(r, accountId, contactId);
  return {
    campaignId,
    contactId,
    channel: campaign.channel,
    customChannel: campaign.customChannel,
    template: openingTemplateFor(campaign, contact),
    to: addressOf(contact, campaign.channel, campaign.customChannel),
    body: personalize(campaign.openingMessage ?? '', contact),
  };
}
