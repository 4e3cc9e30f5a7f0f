import type { Gateway } from '../context.js';
import { ApiError, badRequest } from '../errors.js';
import { audit, changedKeys, type AuditBy } from './audit-log.js';
import { mask } from './mask.js';
import type { Account, BotSettings } from './accounts.js';
import { getCampaign, type Campaign } from './campaigns.js';
import { checkTarget } from './targets.js';
import type { botSettings } from '../contract/bot.js';
import type { Answer } from '../contract/shared.js';

/*
 * Which bot answers an account's contacts: the offline FAQ bot, or any OpenAI-compatible chat-completions endpoint
 * (OpenAI, Ollama, vLLM, LM Studio) with the FAQ bot standing in when it fails. The default campaign's bot answers
 * contacts that no campaign reached yet (a custom-channel message naming none).
 */

const DEFAULT: BotSettings = { provider: 'faq', openai: null, defaultCampaignId: null };

export const botSettingsOf = (account: Account): BotSettings => account.bot ?? DEFAULT;

/** The settings as the API shows them: the key masked, never whole. */
export function publicBotSettings(account: Account): Answer<typeof botSettings> {
  const s = botSettingsOf(account);
  return { ...s, openai: s.openai && { ...s.openai, apiKey: s.openai.apiKey && mask(s.openai.apiKey) } };
}

export type BotSettingsChange = Partial<Omit<BotSettings, 'openai'>> & {
  openai?: { baseUrl: string; model: string; apiKey?: string | null } | null;
};

/**
 * Changes the settings; an `openai` without `apiKey` keeps the key saved before, so a form need not hold it, as long
 * as its base URL is the one the key was given for (keptKeyStaysWith). The
 * endpoint is judged by the target policy when it is given, and when the provider is switched on with the one saved:
 * it may have been saved under a looser policy.
 */
export async function updateBotSettings(
  gw: Gateway,
  accountId: string,
  change: BotSettingsChange,
  by?: AuditBy,
): Promise<Account> {
  const saved =
    change.openai === undefined && change.provider === 'openai'
      ? await gw.store.get<Account>('accounts', accountId)
      : undefined;
  const baseUrl = change.openai ? change.openai.baseUrl : saved && botSettingsOf(saved).openai?.baseUrl;
  if (baseUrl) await checkTarget(gw, baseUrl, 'openai.baseUrl');
  return gw.store.transact(async (tx) => {
    const account = (await tx.get<Account>('accounts', accountId))!;
    const before = botSettingsOf(account);
    if (change.defaultCampaignId) refuseArchived(await getCampaign(tx, accountId, change.defaultCampaignId));
    if (change.openai?.apiKey === undefined && change.openai && before.openai?.apiKey)
      keptKeyStaysWith(before.openai.baseUrl, change.openai.baseUrl);
    const openai =
      change.openai === undefined
        ? before.openai
        : change.openai && {
            ...change.openai,
            apiKey: change.openai.apiKey === undefined ? (before.openai?.apiKey ?? null) : change.openai.apiKey,
          };
    const next: BotSettings = { ...before, ...change, openai };
    if (next.provider === 'openai' && !next.openai) {
      throw badRequest(
        'openai: the OpenAI-compatible endpoint (baseUrl, model) is required with provider "openai"',
        'VALIDATION_ERROR',
      );
    }
    // bot.openai names the endpoint as a whole: its key is never told apart, nor shown.
    const keys = changedKeys(before, next, Object.keys(change) as Array<keyof BotSettings & string>);
    if (keys.length) await audit(tx, by, 'settings.changed', null, { keys: keys.map((k) => `bot.${k}`) });
    return tx.update<Account>('accounts', accountId, { bot: next });
  });
}

/** A base URL as the endpoint is called: parsed, without the slashes that end it. */
const endpointOf = (baseUrl: string): string => {
  try {
    return new URL(baseUrl).href.replace(/\/+$/, '');
  } catch {
    return baseUrl;
  }
};

/**
 * The saved key is sent only to the base URL it was given for. It is shown to nobody, not even the account's admins,
 * so a change that points it elsewhere must give it again (or none): kept, it would go to whichever server an admin
 * named, and be read there. The same origin is not enough: hosted gateways serve many tenants under one origin, each
 * under a path of its own.
 */
function keptKeyStaysWith(savedBaseUrl: string, baseUrl: string): void {
  if (endpointOf(savedBaseUrl) === endpointOf(baseUrl)) return;
  const message =
    'is needed again with a new baseUrl: the saved key is sent only to the address it was given for; give the key ' +
    'for the new one, or null for none';
  throw new ApiError(400, 'VALIDATION_ERROR', `openai.apiKey: ${message}`, {}, [
    { field: 'openai.apiKey', code: 'REQUIRED', message },
  ]);
}

/** An archived campaign answers no one new (engine/bot-reply.ts): as the default it would answer nobody. */
function refuseArchived(campaign: Campaign): void {
  if (campaign.status !== 'archived') return;
  throw new ApiError(
    409,
    'CAMPAIGN_ARCHIVED',
    `defaultCampaignId: the campaign "${campaign.name}" is archived: bring it back (PATCH /v1/campaigns/{id} {"status":"paused"}) or choose another`,
  );
}
