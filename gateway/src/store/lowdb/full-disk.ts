import { readFileSync } from 'node:fs';

let flagFile: string | undefined;

/**
 * For tests where no small file system can be mounted, nor a file's owner or attributes stop the root user
 * (LEADCHAT_TEST_FULL_DISK): while `file` exists, the embedded store's writes fail as the system fails them on a
 * full disk, or with the error code the file holds (`EACCES`, `EPERM`, `EROFS`, `EIO`). Unset (always, in
 * production), a write pays one comparison for it.
 */
export function simulateFullDisk(file: string | undefined): void {
  flagFile = file;
}

/**
 * What a write does to the file system: `create` makes, renames or opens a file in a directory, `write` adds to a
 * file already open, `shrink` cuts one back.
 */
export type DiskChange = 'create' | 'write' | 'shrink';

/**
 * Which changes each simulated error refuses, as the system does: a full disk still lets a file shrink; a data dir
 * whose owner or mode changed refuses new files and renames, while a file already open is still written; an
 * immutable file, a read-only or failing file system refuse everything.
 */
const REFUSES: Record<string, { refuses: DiskChange[]; says: string }> = {
  ENOSPC: { refuses: ['create', 'write'], says: 'no space left on device' },
  EACCES: { refuses: ['create'], says: 'permission denied' },
  EPERM: { refuses: ['create', 'write', 'shrink'], says: 'operation not permitted' },
  EROFS: { refuses: ['create', 'write', 'shrink'], says: 'read-only file system' },
  EIO: { refuses: ['create', 'write', 'shrink'], says: 'i/o error' },
};

/** The system call the system would name for each change. */
const SYSCALL: Record<DiskChange, string> = { create: 'open', write: 'write', shrink: 'ftruncate' };

/** Throws as the system would for `change` while a fault is simulated. */
export function refuseWhenFaulty(change: DiskChange = 'write'): void {
  if (flagFile === undefined) return;
  let code: string;
  try {
    code = readFileSync(flagFile, 'utf8').trim() || 'ENOSPC';
  } catch {
    return;
  }
  const fault = REFUSES[code];
  if (!fault?.refuses.includes(change)) return;
  const syscall = SYSCALL[change];
  throw Object.assign(new Error(`${code}: ${fault.says}, ${syscall}`), { code, syscall });
}
