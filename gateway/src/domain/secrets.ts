import { createHash, hash, randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';

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

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64')}$${scryptSync(password, salt, 32).toString('base64')}`;
}

/**
 * Checks a password against a `hashPassword` result. The comparison is constant-time, and scrypt runs on the
 * thread pool so that a sign-in never holds up the requests around it. A stored value of another form is a
 * mismatch, found after the same work as any other.
 */
export function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, salt = '', hash = ''] = stored.split('$');
  const expected = Buffer.from(hash, 'base64');
  return new Promise((resolve, reject) => {
    scrypt(password, Buffer.from(salt, 'base64'), 32, (err, derived) => {
      if (err) return reject(err);
      const same = expected.length === derived.length && timingSafeEqual(derived, expected);
      resolve(scheme === 'scrypt' && same);
    });
  });
}
