import type { Gateway } from '../context.js';
import { answersOnly, type FollowUpStep, type SendingWindow } from '../api-contract.js';
import { ApiError, FieldChecks, fieldError, notFound } from '../errors.js';
import { parseDuration, parseRate } from './durations.js';
import { checkTemplate } from './personalize.js';
import { parseSendingWindow } from './sending-window.js';
import { newId, now } from '../ids.js';
import type { Page, Reader, Tx } from '../store/store.js';
import { getAccount, type Account } from './accounts.js';
import { audit, type AuditBy } from './audit-log.js';
import { sendingRefusal } from './channel-credentials.js';
import { lockList } from './lists.js';
import type { CampaignAnswer } from '../contract/campaigns.js';
import { campaignAnsweringChanged } from './campaign-changes.js';

export type Channel = CampaignAnswer['channel'];
export type { FollowUpStep };

/** A campaign as it is stored: what the API shows, and the account it belongs to. */
export interface Campaign extends CampaignAnswer {
  accountId: string;
}

export const DEFAULT_SEND_RATE = '30/m';

export type CampaignFields = Omit<
  Campaign,
  'id' | 'accountId' | 'version' | 'createdAt' | 'updatedAt' | 'bot' | 'followUps' | 'sendingWindow'
> & {
  bot: Partial<Campaign['bot']>;
  followUps: Partial<Campaign['followUps']>;
  sendingWindow: AskedWindow | null;
};

/** A sending window as a request gives it: its days any texts, left out for every day, until parseSendingWindow. */
type AskedWindow = Omit<SendingWindow, 'days'> & { days?: string[] | null };

const defaultBot: Campaign['bot'] = {
  active: true,
  instructions: '',
  companyInfo: '',
  faqs: [],
  resources: [],
  goal: '',
  handoffMessage: null,
};

/**
 * A campaign as stored, with the fields added since it was written filled in. Follow-ups written as bare delays
 * (minutes, with no text to send) carry nothing that can be sent: they read as none. One written before campaigns
 * counted their versions is at its first. A sending window written before windows named their days opens every day.
 */
function current(stored: Campaign): Campaign {
  const followUps = stored.followUps as Partial<Campaign['followUps']> | undefined;
  return {
    ...stored,
    version: stored.version ?? 1,
    customChannel: stored.customChannel ?? null,
    sendRate: stored.sendRate ?? DEFAULT_SEND_RATE,
    sendingWindow: stored.sendingWindow ? { ...stored.sendingWindow, days: stored.sendingWindow.days ?? null } : null,
    openingTemplateParams: stored.openingTemplateParams ?? [],
    reengagementTemplate: stored.reengagementTemplate ?? null,
    reengagementTemplateParams: stored.reengagementTemplateParams ?? [],
    templateLanguage: stored.templateLanguage ?? null,
    followUps: { enabled: followUps?.enabled ?? false, steps: followUps?.steps ?? [] },
  };
}

export const publicCampaign = ({ accountId: _a, ...c }: Campaign): CampaignAnswer => c;

export async function getCampaign(r: Reader, accountId: string, id: string): Promise<Campaign> {
  const campaign = await r.get<Campaign>('campaigns', id);
  if (!campaign || campaign.accountId !== accountId) throw notFound('Campaign');
  return current(campaign);
}

/**
 * A campaign that has been Live and is stopped: paused, or archived (a paused campaign out of the lists). What it
 * would send waits, held until it is Live again, and its bot answers nothing.
 */
export const stopped = (campaign: Campaign | undefined): boolean =>
  campaign?.status === 'paused' || campaign?.status === 'archived';

/** A campaign whose bot answers now: on, and the campaign not paused or archived. */
export const answering = (campaign: Campaign | undefined): campaign is Campaign =>
  !!campaign?.bot.active && !stopped(campaign);

/** A campaign by id for the engine's jobs, which know their account already; undefined once it is gone. */
export async function campaignById(r: Reader, id: string): Promise<Campaign | undefined> {
  const campaign = await r.get<Campaign>('campaigns', id);
  return campaign && current(campaign);
}

/** The account's newest Live campaign on a channel: the one that answers a contact who writes there first. */
export const liveCampaignOn = async (r: Reader, accountId: string, channel: Channel): Promise<Campaign | undefined> =>
  (await campaignsOf(r, accountId)).filter((c) => c.channel === channel && c.status === 'live').at(-1);

/** The account's campaigns linked to a list, oldest first, archived ones among them. */
export const campaignsOfList = async (r: Reader, accountId: string, listId: string): Promise<Campaign[]> =>
  (await campaignsOf(r, accountId)).filter((c) => c.listId === listId);

/** The account's campaigns, oldest first; a page of them when `page` is given. */
export const campaignsOf = async (r: Reader, accountId: string, page?: Page) =>
  (await r.find<Campaign>('campaigns', 'account', [accountId], page)).map(current);

/**
 * Why a campaign cannot go (or stay) Live on the account's providers, each reason with the field it is about (the
 * provider's reason is about the channel): none when it can send.
 */
function cannotSend(account: Account, c: Omit<Campaign, 'sendingWindow'>): Array<{ field: string; reason: string }> {
  if (answersOnly(c.channel)) {
    const refused = sendingRefusal(account.channels, { channel: c.channel, openingTemplate: null });
    return refused ? [{ field: 'channel', reason: refused }] : [];
  }
  const missing = [
    !c.listId && { field: 'listId', reason: 'link it to a list (listId)' },
    !c.openingMessage?.trim() && { field: 'openingMessage', reason: 'give it an openingMessage' },
    c.channel === 'custom' &&
      !c.customChannel?.trim() && { field: 'customChannel', reason: 'name its custom channel (customChannel)' },
  ].filter((m) => m !== false);
  const refused =
    c.channel === 'custom'
      ? undefined
      : sendingRefusal(account.channels, { channel: c.channel, openingTemplate: c.openingTemplate });
  return refused ? [...missing, { field: 'channel', reason: refused }] : missing;
}

/** Every reason a campaign cannot go Live, in one 400: the message lists them, `fields` says which field each is about. */
function liveRefusal(reasons: Array<{ field: string; reason: string }>): ApiError {
  const code = 'CAMPAIGN_CANNOT_SEND';
  const fields = reasons.map(({ field, reason }) => ({
    field,
    code,
    message: field === 'channel' ? reason : 'is required to go Live',
  }));
  return new ApiError(400, code, `The campaign cannot go Live: ${reasons.map((r) => r.reason).join('; ')}`, {}, fields);
}

/**
 * Checks what the request schema cannot: durations, rates, windows, template fields and the Live rule, naming
 * every field it refuses at once.
 */
function check(
  account: Account,
  c: Omit<Campaign, 'sendingWindow'> & { sendingWindow: AskedWindow | null },
  keptZone?: string,
): Campaign {
  const checks = new FieldChecks();
  checks.run(() => parseRate(c.sendRate, 'sendRate'));
  const sendingWindow = checks.run(() => c.sendingWindow && parseSendingWindow(c.sendingWindow, keptZone)) ?? null;
  if (c.openingMessage) checks.run(() => checkTemplate(c.openingMessage!, 'openingMessage'));
  c.openingTemplateParams.forEach((p, i) => checks.run(() => checkTemplate(p, `openingTemplateParams.${i}`)));
  c.reengagementTemplateParams.forEach((p, i) => checks.run(() => checkTemplate(p, `reengagementTemplateParams.${i}`)));
  c.followUps.steps.forEach((step, i) => {
    checks.run(() => parseDuration(step.after, { field: `followUps.steps.${i}.after` }));
    checks.run(() => checkTemplate(step.body, `followUps.steps.${i}.body`));
  });
  if (answersOnly(c.channel) && (c.openingMessage?.trim() || c.openingTemplate?.trim())) {
    const field = c.openingMessage?.trim() ? 'openingMessage' : 'openingTemplate';
    checks.add(
      fieldError(
        field,
        `${c.channel === 'messenger' ? 'Messenger' : 'Instagram'} does not let a business write first: the campaign answers the contacts who write; leave ${field} empty`,
        'NO_FIRST_MESSAGE',
      ),
    );
  }
  const reasons = c.status === 'live' ? cannotSend(account, c) : [];
  if (reasons.length) checks.add(liveRefusal(reasons));
  checks.done();
  return { ...c, sendingWindow };
}

/** A campaign as the audit log names it: by its name as it was then. */
export const campaignTarget = (c: Campaign) => ({ type: 'campaign' as const, id: c.id, name: c.name });

/** `remember` keeps the answer in the creation's own transaction, for an Idempotency-Key to replay (idempotency.ts). */
export async function createCampaign(
  gw: Gateway,
  accountId: string,
  input: CampaignFields,
  remember?: (tx: Tx, campaign: Campaign) => Promise<void>,
  by?: AuditBy,
): Promise<Campaign> {
  return gw.store.transact(async (tx) => {
    if (input.listId) await lockList(tx, accountId, input.listId);
    const at = now();
    const campaign = await tx.insert<Campaign>(
      'campaigns',
      check(await getAccount(tx, accountId), {
        ...input,
        id: newId('cmp'),
        accountId,
        followUps: { enabled: false, steps: [], ...input.followUps },
        bot: { ...defaultBot, ...input.bot },
        version: 1,
        createdAt: at,
        updatedAt: at,
      }),
    );
    await remember?.(tx, campaign);
    await audit(tx, by, 'campaign.created', campaignTarget(campaign));
    return campaign;
  });
}

/**
 * Applies a change to the campaign in `tx`, as the next of its versions, checked as a whole: answers it as it was and
 * as it is now, for the engine to take up what it changes for what waits (engine/campaign-edits.ts). `precondition`
 * (the request's If-Match) judges the version the change finds, before anything else is: a concurrent change of the
 * campaign makes this transaction read it anew (Tx), so of two changes made from the same version, one goes through
 * and the other finds the next.
 */
export async function changeCampaign(
  tx: Tx,
  accountId: string,
  id: string,
  patch: Partial<CampaignFields>,
  precondition?: (version: number) => void,
): Promise<{ before: Campaign; after: Campaign }> {
  const campaign = await getCampaign(tx, accountId, id);
  precondition?.(campaign.version);
  refuseArchivedChange(campaign, patch);
  if (patch.listId) await lockList(tx, accountId, patch.listId);
  // A campaign made without a list is linked to one: its trigger takes the default it would have had if made with it.
  const linked = !campaign.listId && patch.listId && patch.triggerOnNewContacts === undefined;
  const changed = check(
    await getAccount(tx, accountId),
    {
      ...campaign,
      ...patch,
      ...(linked ? { triggerOnNewContacts: true } : {}),
      bot: { ...campaign.bot, ...patch.bot },
      followUps: { ...campaign.followUps, ...patch.followUps },
      version: campaign.version + 1,
      updatedAt: now(),
    },
    campaign.sendingWindow?.timezone,
  );
  const { id: _id, ...fields } = changed;
  const after = await tx.update<Campaign>('campaigns', id, fields);
  // Its conversations that need a reply now wait for a person, or no longer do: the console counts them anew.
  if (answering(campaign) !== answering(after)) campaignAnsweringChanged(tx, accountId, id);
  return { before: campaign, after };
}

/** The states that bring an archived campaign back: it goes Live again from there, as a paused one does. */
const BROUGHT_BACK: ReadonlyArray<Campaign['status']> = ['paused', 'draft'];

/**
 * An archived campaign is done with: it changes only by being brought back (status paused or draft, with any other
 * change in the same request), or archived again. Going Live at once is refused too: it is brought back first, so
 * that what it would send is looked at before it goes.
 */
function refuseArchivedChange(campaign: Campaign, patch: Partial<CampaignFields>): void {
  if (campaign.status !== 'archived') return;
  if (patch.status && BROUGHT_BACK.includes(patch.status)) return;
  const others = Object.keys(patch).filter((field) => field !== 'status');
  if (patch.status === 'archived' && others.length === 0) return;
  throw new ApiError(
    409,
    'CAMPAIGN_ARCHIVED',
    `The campaign is archived: bring it back first (PATCH {"status":"paused"} or {"status":"draft"}, with the other changes if you like)${patch.status === 'live' ? ', then make it Live' : ''}`,
  );
}

/**
 * A list deleted: each archived campaign of its `campaigns` (none other may be linked to it, list-deletion.ts) is left
 * with no list, as its next version, so that nothing points at a list that is gone. Brought back, it is linked to
 * another before it goes Live (the Live rule asks for a list).
 */
export async function unlinkArchived(tx: Tx, campaigns: Campaign[]): Promise<void> {
  for (const c of campaigns) {
    if (c.status !== 'archived') continue;
    await tx.update<Campaign>('campaigns', c.id, { listId: null, version: c.version + 1, updatedAt: now() });
  }
}
