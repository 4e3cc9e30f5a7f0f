import { existsSync } from 'node:fs';

let flagFile: string | undefined;

/**
 * For tests where no small file system can be mounted (LEADCHAT_TEST_FULL_DISK): while `file` exists, every write of
 * the embedded store's files fails as the system fails it on a full disk. Unset (always, in production), a write
 * pays one comparison for it.
 */
export function simulateFullDisk(file: string | undefined): void {
  flagFile = file;
}

/** Throws ENOSPC, as write(2) on a full disk, while a full disk is simulated. */
export function refuseWhenFull(): void {
  if (flagFile === undefined || !existsSync(flagFile)) return;
  throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
    code: 'ENOSPC',
    errno: -28,
    syscall: 'write',
  });
}
