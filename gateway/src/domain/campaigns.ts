import type { Gateway } from '../context.js';
import { notFound } from '../errors.js';
import { newId, now } from '../ids.js';
import type { Reader } from '../store/store.js';
import { getList } from './lists.js';

/** A campaign and the settings spec §2.3 names. Its behaviour belongs to the conversation engine. */
export interface Campaign {
  id: string;
  accountId: string;
  name: string;
  type: 'combined' | 'outgoing' | 'incoming';
  language: string;
  listId: string | null;
  channel: 'whatsapp' | 'sms';
  openingTemplate: string | null;
  openingMessage: string | null;
  triggerOnNewContacts: boolean;
  status: 'draft' | 'live' | 'paused';
  followUps: { enabled: boolean; delaysMinutes: number[] };
  bot: { active: boolean; instructions: string; companyInfo: string; faqs: Array<{ question: string; answer: string }>; resources: string[]; goal: string };
  createdAt: string;
  updatedAt: string;
}

type CampaignFields = Omit<Campaign, 'id' | 'accountId' | 'createdAt' | 'updatedAt' | 'bot' | 'followUps'> & {
  bot: Partial<Campaign['bot']>;
  followUps: Partial<Campaign['followUps']>;
};

const defaultBot: Campaign['bot'] = { active: true, instructions: '', companyInfo: '', faqs: [], resources: [], goal: '' };

export const publicCampaign = ({ accountId: _a, ...c }: Campaign) => c;

export async function getCampaign(r: Reader, accountId: string, id: string): Promise<Campaign> {
  const campaign = await r.get<Campaign>('campaigns', id);
  if (!campaign || campaign.accountId !== accountId) throw notFound('Campaign');
  return campaign;
}

export const campaignsOf = (r: Reader, accountId: string) => r.find<Campaign>('campaigns', 'account', [accountId]);

export async function createCampaign(gw: Gateway, accountId: string, input: CampaignFields): Promise<Campaign> {
  return gw.store.transact(async (tx) => {
    if (input.listId) await getList(tx, accountId, input.listId);
    const at = now();
    return tx.insert<Campaign>('campaigns', {
      ...input,
      id: newId('cmp'),
      accountId,
      followUps: { enabled: false, delaysMinutes: [], ...input.followUps },
      bot: { ...defaultBot, ...input.bot },
      createdAt: at,
      updatedAt: at,
    });
  });
}

export async function updateCampaign(gw: Gateway, accountId: string, id: string, patch: Partial<CampaignFields>): Promise<Campaign> {
  return gw.store.transact(async (tx) => {
    const campaign = await getCampaign(tx, accountId, id);
    if (patch.listId) await getList(tx, accountId, patch.listId);
    return tx.update<Campaign>('campaigns', id, {
      ...(patch as Partial<Campaign>),
      ...(patch.bot ? { bot: { ...campaign.bot, ...patch.bot } } : {}),
      ...(patch.followUps ? { followUps: { ...campaign.followUps, ...patch.followUps } } : {}),
      updatedAt: now(),
    });
  });
}
