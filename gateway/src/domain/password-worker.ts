import { scryptSync } from 'node:crypto';

/** One scrypt derivation, run on a thread of the password-hashing pool (see password-hashing.ts). */
export default function derive({ password, salt }: { password: string; salt: Uint8Array }): Uint8Array {
  return scryptSync(password, salt, 32);
}
