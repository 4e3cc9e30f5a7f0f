import { createHash, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

/** API keys and tokens are random, so a SHA-256 digest is a safe stored form; passwords get scrypt. */
export const newApiKey = (): string => `lck_${randomBytes(24).toString('base64url')}`;
export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;
export const newToken = (): string => randomBytes(32).toString('base64url');

export const digest = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** Constant-time equality of two `digest`s (hex strings of one length). */
export function sameDigest(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

/** Constant-time equality of two secrets, whatever their lengths. */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64')}$${scryptSync(password, salt, 32).toString('base64')}`;
}
