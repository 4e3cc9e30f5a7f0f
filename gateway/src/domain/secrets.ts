import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { passwordHashing } from './password-hashing.js';

/** API keys and tokens are random, so a SHA-256 digest is a safe stored form; passwords get scrypt. */
export const newApiKey = (): string => `lck_${randomBytes(24).toString('base64url')}`;
export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;
export const newToken = (): string => randomBytes(32).toString('base64url');

export const digest = (secret: string): string => hash('sha256', secret, 'hex');

/** Constant-time equality of two `digest`s (hex strings of one length). */
export function sameDigest(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

/** Constant-time equality of two secrets, whatever their lengths. */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** A password's stored form: scrypt of it with a salt of its own, derived on the password-hashing pool. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64')}$${(await passwordHashing.derive(password, salt)).toString('base64')}`;
}

/**
 * Checks a password against a `hashPassword` result. scrypt runs on the password-hashing pool, so that a sign-in
 * never holds up the requests and writes around it, and the pool being full refuses the check with 429 BUSY. The
 * comparison is constant-time; a stored value of another form is a mismatch, found after the same work as any other.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, salt = '', hash = ''] = stored.split('$');
  const expected = Buffer.from(hash, 'base64');
  const derived = await passwordHashing.derive(password, Buffer.from(salt, 'base64'));
  const same = expected.length === derived.length && timingSafeEqual(derived, expected);
  return scheme === 'scrypt' && same;
}
