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

/** The answer to HELP when the account has set no help text of its own (PUT /v1/settings {"helpText"}). */
export const DEFAULT_HELP_TEXT = 'Reply STOP to unsubscribe, or ask for a person and a team member will answer you.';

/** What a contact who writes HELP is sent: the account's help text, else the built-in one. */
export const helpTextOf = (account: { helpText?: string | null }): string =>
  account.helpText?.trim() || DEFAULT_HELP_TEXT;
