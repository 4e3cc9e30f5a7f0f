import { baseLanguage } from '../language.js';

/** What the gateway itself answers, whatever the bot or the campaign would say. */
export const OPT_OUT_CONFIRMATION =
  'You are unsubscribed and will get no more messages from us. Reply START to subscribe again.';
export const OPT_IN_CONFIRMATION = 'You are subscribed again. Reply STOP at any time to unsubscribe.';
/** What a contact is told when a person takes over, in the campaign's language when the campaign sets no text of its own. */
const HANDOFF_NOTICES: Record<string, string> = {
  en: 'Thanks for your message! A member of our team will get back to you shortly.',
  es: '¡Gracias por tu mensaje! Una persona de nuestro equipo te responderá en breve.',
  pt: 'Obrigado pela sua mensagem! Uma pessoa da nossa equipe vai responder em breve.',
  fr: 'Merci pour votre message ! Un membre de notre équipe vous répondra très vite.',
  de: 'Danke für Ihre Nachricht! Jemand aus unserem Team meldet sich in Kürze.',
  it: 'Grazie per il messaggio! Una persona del nostro team ti risponderà a breve.',
};

/** The built-in hand-off notice in a language, English where there is none of it. */
export const builtInHandoffNotice = (language: string | null | undefined): string =>
  HANDOFF_NOTICES[baseLanguage(language)] ?? HANDOFF_NOTICES.en!;

/**
 * The hand-off notice: the campaign's own `bot.handoffMessage`, else the account's `handoffMessage`, else the built-in
 * text in the campaign's language, or the account's where no campaign has the conversation.
 */
export function handoffNotice(
  campaign: { language: string; bot: { handoffMessage?: string | null } } | undefined,
  account: { handoffMessage?: string | null; language?: string | null },
): string {
  return (
    campaign?.bot.handoffMessage?.trim() ||
    account.handoffMessage?.trim() ||
    builtInHandoffNotice(campaign?.language ?? account.language)
  );
}

/**
 * What a contact is told at a hand-off out of the team's business hours, in the campaign's language: the usual
 * notice promises an answer "shortly", which a team gone home does not give.
 */
const AWAY_NOTICES: Record<string, string> = {
  en: 'Thanks for your message! Our team is away right now; we will get back to you as soon as we are back.',
  es: '¡Gracias por tu mensaje! Nuestro equipo no está disponible ahora; te responderemos en cuanto volvamos.',
  pt: 'Obrigado pela sua mensagem! Nossa equipe não está disponível agora; vamos responder assim que voltarmos.',
  fr: 'Merci pour votre message ! Notre équipe est absente pour le moment ; nous vous répondrons dès notre retour.',
  de: 'Danke für Ihre Nachricht! Unser Team ist gerade nicht da; wir melden uns, sobald wir zurück sind.',
  it: 'Grazie per il messaggio! Il nostro team non è disponibile in questo momento; ti risponderemo appena torniamo.',
};

/** The built-in away notice in a language, English where there is none of it. */
export const builtInAwayNotice = (language: string | null | undefined): string =>
  AWAY_NOTICES[baseLanguage(language)] ?? AWAY_NOTICES.en!;

/**
 * The hand-off notice out of business hours: the account's `awayMessage`, else the built-in text in the campaign's
 * language, or the account's. It wins over the campaign's and the account's hand-off texts, which promise an answer
 * soon.
 */
export const awayNotice = (
  campaign: { language: string } | undefined,
  account: { awayMessage?: string | null; language?: string | null },
): string => account.awayMessage?.trim() || builtInAwayNotice(campaign?.language ?? account.language);

/** The answer to HELP when the account has set no help text of its own (PUT /v1/settings {"helpText"}). */
export const DEFAULT_HELP_TEXT = 'Reply STOP to unsubscribe, or ask for a person and a team member will answer you.';

/** What a contact who writes HELP is sent: the account's help text, else the built-in one. */
export const helpTextOf = (account: { helpText?: string | null }): string =>
  account.helpText?.trim() || DEFAULT_HELP_TEXT;
