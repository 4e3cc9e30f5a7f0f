import { SERVICE_WINDOW_MS } from '../api-contract.js';
import type { Campaign } from './campaigns.js';
import type { Contact } from './contacts.js';
import { personalize } from './personalize.js';

/** An approved WhatsApp template: its name (a Twilio Content SID "HX…" on Twilio), language and body parameters. */
export interface WhatsAppTemplate {
  name: string;
  /** A WhatsApp language code such as "en_US" or "es". */
  language: string;
  /** The values of the body's {{1}}, {{2}} … in order, already personalized. */
  params: string[];
}

/**
 * The WhatsApp language code of a campaign's templates: its own setting, else its language ("es-MX" → "es_MX").
 * WhatsApp codes carry a language and a region only, so a script ("zh-Hant-TW" → "zh_TW") is left out.
 */
export function templateLanguage(campaign: Pick<Campaign, 'templateLanguage' | 'language'>): string {
  if (campaign.templateLanguage) return campaign.templateLanguage;
  let lang: string;
  let region: string | undefined;
  try {
    ({ language: lang, region } = new Intl.Locale(campaign.language));
  } catch {
    // A campaign saved before languages were checked may hold a WhatsApp-style code ("es_MX").
    [lang = '', region] = campaign.language.split(/[-_]/);
  }
  return region ? `${lang.toLowerCase()}_${region.toUpperCase()}` : lang.toLowerCase();
}

function template(
  campaign: Campaign,
  name: string | null,
  params: string[],
  contact: Contact,
): WhatsAppTemplate | null {
  if (campaign.channel !== 'whatsapp' || !name?.trim()) return null;
  return {
    name: name.trim(),
    language: templateLanguage(campaign),
    params: params.map((p) => personalize(p, contact)),
  };
}

/** The template a WhatsApp campaign's opening message goes out as, personalized for the contact. */
export const openingTemplateFor = (campaign: Campaign, contact: Contact) =>
  template(campaign, campaign.openingTemplate, campaign.openingTemplateParams, contact);

/** The template sent instead of free text outside the 24-hour window, or null when the campaign has none. */
export const reengagementTemplateFor = (campaign: Campaign, contact: Contact) =>
  template(campaign, campaign.reengagementTemplate, campaign.reengagementTemplateParams, contact);

/**
 * Messenger and Instagram allow a person's reply (Meta's HUMAN_AGENT tag) this long after the contact's last
 * message; everything else goes within the 24-hour window.
 */
export const HUMAN_AGENT_WINDOW_MS = 7 * 24 * 3_600_000;

/** Whether free text may go on this WhatsApp conversation now (and, the same, anything on Messenger and Instagram). */
export const inServiceWindow = (lastIncomingAt: string | null, at: number) =>
  lastIncomingAt !== null && at - Date.parse(lastIncomingAt) < SERVICE_WINDOW_MS;
