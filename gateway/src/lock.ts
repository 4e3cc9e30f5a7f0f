import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * One gateway per data dir. The lock file holds the owner's pid; a lock whose process is gone (a crash, a
 * kill -9) is taken over. Creation uses link(), which is atomic and fails if the lock exists.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const lockFile = path.join(dataDir, 'gateway.lock');
  const mine = path.join(dataDir, `gateway.lock.${process.pid}`);
  await writeFile(mine, String(process.pid));
  try {
    for (let tries = 0; ; tries++) {
      try {
        await link(mine, lockFile);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || tries > 0) throw err;
        const owner = Number(await readFile(lockFile, 'utf8').catch(() => ''));
        if (owner && owner !== process.pid && isAlive(owner)) {
          throw new Error(`Another gateway (pid ${owner}) is using the data dir ${dataDir}; stop it first`);
        }
        await unlink(lockFile).catch(() => undefined);
      }
    }
  } finally {
    await unlink(mine).catch(() => undefined);
  }
  return async () => {
    await unlink(lockFile).catch(() => undefined);
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
