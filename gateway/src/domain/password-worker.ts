import { scryptSync } from 'node:crypto';
import { setPriority } from 'node:os';

// The lowest CPU priority, for this thread alone (Linux gives each thread its own): a password check takes the CPU
// that requests and the store's writes leave over, and never theirs. Where the system refuses, the thread runs as is.
try {
  setPriority(19);
} catch {
  // Nothing to do: the pool's bound still holds.
}

/** One scrypt derivation, run on a thread of the password-hashing pool (see password-hashing.ts). */
export default function derive({ password, salt }: { password: string; salt: Uint8Array }): Uint8Array {
  return scryptSync(password, salt, 32);
}
