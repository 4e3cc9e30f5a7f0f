import { clockNow } from '../clock.js';
import { iso } from '../ids.js';
import { newWebhookSecret } from './secrets.js';

/** A signing secret a rotation replaced, and until when it still signs beside the new one. */
export interface ReplacedSecret {
  secret: string;
  signsUntil: string;
}

/**
 * A replaced secret signs beside the new one for a day (Standard Webhooks lets a header carry several signatures, as
 * Svix does for its 24 hours): a receiver still holding it, an n8n credential or a custom channel's receiver, keeps
 * verifying until someone updates it instead of answering 401, which fails a delivery for good; and a delivery
 * retried over the whole default schedule (about 11 hours) still verifies at its last attempt. Signing with it
 * gives nothing away: an HMAC does not reveal its key, and a receiver that took the new one refuses the old.
 */
const REPLACED_SECRET_SIGNS_MS = 24 * 3_600_000;

/** Each one is a signature more in every delivery's header: rotations in quick turns keep the newest few. */
const REPLACED_KEPT = 3;

/** The part of an account that signs its webhooks. */
interface Secrets {
  webhookSecret: string;
  replacedWebhookSecrets?: ReplacedSecret[];
}

/** The replaced secrets that still sign now, newest first. */
const stillSigning = (account: Secrets): ReplacedSecret[] =>
  (account.replacedWebhookSecrets ?? []).filter((r) => Date.parse(r.signsUntil) > clockNow());

/** The secrets that sign a webhook posted now: the account's own first, then those replaced within the day. */
export const signingSecrets = (account: Secrets): string[] => [
  account.webhookSecret,
  ...stillSigning(account).map((r) => r.secret),
];

/** Until when a replaced secret still signs (the last one replaced lasts longest); null when none does. */
export const previousSecretExpiresAt = (account: Secrets): string | null =>
  stillSigning(account)[0]?.signsUntil ?? null;

/** The change a rotation makes: a new secret, the one it replaces signing beside it for a day. */
export const rotated = (account: Secrets): Required<Secrets> => ({
  webhookSecret: newWebhookSecret(),
  replacedWebhookSecrets: [
    { secret: account.webhookSecret, signsUntil: iso(clockNow() + REPLACED_SECRET_SIGNS_MS) },
    ...stillSigning(account),
  ].slice(0, REPLACED_KEPT),
});
