import { link, readFile, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { refuseWhenFaulty } from './store/lowdb/full-disk.js';

/** The holder touches the lock this often; an owner silent for STALE_MS is gone, whatever host it ran on. */
const BEAT_MS = 5_000;
const STALE_MS = 30_000;

/** The data dir is held by a gateway that runs (on this host or another sharing the volume). */
export class DataDirInUse extends Error {
  constructor(
    message: string,
    /** Who holds the data dir: `pid 123`, or `pid 123 on host` for another machine's. */
    readonly holder: string,
  ) {
    super(message);
  }
}

/**
 * The data dir refuses this process its files: the system's words name only the lock's temporary file (`EACCES:
 * permission denied, open '…/gateway.lock.123'`), so this says whose the dir must be and how to make it so.
 */
export class DataDirNotWritable extends Error {}

/** The user this process runs as, as `chown` takes it: its name, or its number when the system has no name for it. */
function processUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return String(process.getuid?.() ?? 'the service user');
  }
}

/** The refusal `err` of a first write into `dataDir`, in the operator's words; any other error as it is. */
export function unwritableDataDir(dataDir: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  const said = `(${(err as Error).message})`;
  const dir = `the data dir ${dataDir} (LEADCHAT_DATA_DIR)`;
  if (code === 'EACCES') {
    const user = processUser();
    // The usual cause: a restore (or a copy) run as root, the service then started as its own user.
    return new DataDirNotWritable(
      `${dir} cannot be written by the user the gateway runs as, ${user}: make it that user's, e.g. chown -R ${user}: ${dataDir} (a restore run as root leaves it root's) ${said}`,
      { cause: err },
    );
  }
  if (code === 'EPERM')
    return new DataDirNotWritable(
      `${dir} refuses changes to its files (an immutable or append-only attribute): lsattr -d ${dataDir} shows it, chattr -R -i -a ${dataDir} removes it ${said}`,
      { cause: err },
    );
  if (code === 'EROFS')
    return new DataDirNotWritable(
      `${dir} is on a read-only file system: mount it read-write, or set LEADCHAT_DATA_DIR to a writable directory (under a systemd unit with ProtectSystem=strict, one its ReadWritePaths names) ${said}`,
      { cause: err },
    );
  return err;
}

/**
 * One gateway per data dir. The lock file names its owner (pid, then host) and is touched every few seconds
 * while held. It is taken over only when its owner is known to be gone: a process of this host that no longer
 * runs (a crash, a kill -9), or an owner that stopped touching it (another container on a shared volume, whose
 * pid means nothing here). Creation uses link(), which is atomic and fails if the lock exists.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const lockFile = path.join(dataDir, 'gateway.lock');
  const mine = path.join(dataDir, `gateway.lock.${process.pid}`);
  try {
    refuseWhenFaulty('create');
    await writeFile(mine, `${process.pid}\n${os.hostname()}\n`);
  } catch (err) {
    throw unwritableDataDir(dataDir, err);
  }
  try {
    for (let tries = 0; ; tries++) {
      try {
        await link(mine, lockFile);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || tries > 0) throw err;
        const owner = await ownerOf(lockFile);
        if (owner && !owner.gone) {
          const holder = holderOf(owner);
          throw new DataDirInUse(`Another gateway (${holder}) is using the data dir ${dataDir}; stop it first`, holder);
        }
        await unlink(lockFile).catch(() => undefined);
      }
    }
  } finally {
    await unlink(mine).catch(() => undefined);
  }
  const beat = setInterval(() => {
    const now = new Date();
    void utimes(lockFile, now, now).catch(() => undefined);
  }, BEAT_MS);
  beat.unref();
  return async () => {
    clearInterval(beat);
    await unlink(lockFile).catch(() => undefined);
  };
}

/**
 * Who holds the data dir now (`pid 123`, or `pid 123 on host`), or undefined when no gateway runs on it; reads the
 * lock without taking it, so a gateway starting meanwhile is never refused for it.
 */
export async function dataDirHolder(dataDir: string): Promise<string | undefined> {
  const owner = await ownerOf(path.join(dataDir, 'gateway.lock'));
  if (!owner || owner.gone) return undefined;
  return holderOf(owner);
}

function holderOf(owner: { pid: number; host: string }): string {
  return `pid ${owner.pid}${owner.host === os.hostname() ? '' : ` on ${owner.host}`}`;
}

async function ownerOf(lockFile: string): Promise<{ pid: number; host: string; gone: boolean } | undefined> {
  try {
    const [text, { mtimeMs }] = await Promise.all([readFile(lockFile, 'utf8'), stat(lockFile)]);
    const [pidLine = '', host = os.hostname()] = text.split('\n');
    const pid = Number(pidLine);
    const silent = Date.now() - mtimeMs > STALE_MS;
    const deadHere = host === os.hostname() && (!pid || pid === process.pid || !isAlive(pid));
    return { pid, host, gone: silent || deadHere };
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
