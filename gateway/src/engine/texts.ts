/** What the gateway itself answers, whatever the bot or the campaign would say. */
export const OPT_OUT_CONFIRMATION = 'You are unsubscribed and will get no more messages from us. Reply START to subscribe again.';
export const OPT_IN_CONFIRMATION = 'You are subscribed again. Reply STOP at any time to unsubscribe.';
/** The answer to HELP when the account has set no help text of its own (PUT /v1/settings {"helpText"}). */
export const DEFAULT_HELP_TEXT = 'Reply STOP to unsubscribe, or ask for a person and a team member will answer you.';
