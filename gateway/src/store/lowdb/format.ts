import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { gatewayVersion } from '../../version.js';
import { writeFileDurably } from './durable-file.js';

/**
 * The data dir's format: how the embedded store lays out its files (pages, journals, media). It is recorded in
 * `<dataDir>/format`, so that a newer gateway knows what to upgrade and an older one knows to keep its hands off.
 */

/** One format change: `run` turns a data dir of format `to - 1` into format `to`. */
export interface UpgradeStep {
  to: number;
  /** What the step changes, for the log line. */
  what: string;
  /**
   * Must be safe to run again: the new format is recorded only once the step is done, so a crash in the middle
   * runs it again at the next start.
   */
  run(dataDir: string): Promise<void>;
}

/**
 * Every format change, oldest first. Format 1 is the layout data dirs had before the format was recorded; each later
 * change of layout adds its step here, and nothing else needs to know.
 */
export const upgradeSteps: UpgradeStep[] = [
  {
    to: 2,
    what: "pages and journal records keep each document's place in its collection's order; pages without it are written again with it as the store opens",
    // The store itself writes a page without places again at its first checkpoint (see recovery.ts), whenever it
    // meets one: nothing to do before it opens, and nothing lost if a start stops halfway.
    run: async () => {},
  },
  {
    to: 3,
    what: "conversations get the fields this release derives (the last message's author, needing a reply) before the gateway serves",
    // The gateway walks the conversations itself once the store is open (jobs/conversation-upgrade.ts), marking when
    // it is done. Recorded as a format all the same, so that a release before it, which would write conversations
    // without those fields, refuses the data dir rather than leave them behind.
    run: async () => {},
  },
];

/** The format this gateway writes and reads. */
export const STORE_FORMAT = formatAfter(upgradeSteps);

export const FORMAT_FILE = 'format';

export class DataDirFormatError extends Error {}

export interface FormatLog {
  info(fields: object, message: string): void;
}

function formatAfter(steps: UpgradeStep[]): number {
  return steps.at(-1)?.to ?? 1;
}

/**
 * Brings the data dir to this gateway's format before the store opens it. A data dir of a newer format is refused
 * before anything in it changes: this gateway cannot tell what its files mean. A data dir without a recorded format
 * was made before formats were recorded: it is format 1. A new data dir is recorded as this gateway's format.
 * `steps` is the list to follow (the gateway's own, but for tests).
 */
export async function upgradeDataDir(
  dataDir: string,
  log: FormatLog,
  steps: UpgradeStep[] = upgradeSteps,
): Promise<void> {
  const current = formatAfter(steps);
  const found = await readRecord(dataDir);
  const recorded = found?.storeFormat;
  refuseNewer(`the data dir ${dataDir}`, found, current);
  if (recorded === undefined && !(await holdsStore(dataDir))) {
    await recordFormat(dataDir, current);
    return;
  }
  let format = recorded ?? 1;
  const done: string[] =
    recorded === undefined ? ['it had no format version, so it is format 1: recorded that, no file changed'] : [];
  if (recorded === undefined) await recordFormat(dataDir, 1);
  for (const step of steps) {
    if (step.to <= format) continue;
    await step.run(dataDir);
    await recordFormat(dataDir, step.to);
    format = step.to;
    done.push(`format ${step.to}: ${step.what}`);
  }
  // Which release last opened it, for the refusal of an older one.
  if (done.length === 0 && found?.gatewayVersion !== gatewayVersion) await recordFormat(dataDir, format);
  if (done.length > 0) {
    log.info(
      { dataDir, from: recorded ?? 'unversioned', to: current, steps: done },
      `data dir upgraded to store format ${current}: ${done.join('; ')}`,
    );
  }
}

/** What the format file records: the format, and the release that last opened the data dir (since format 3). */
export interface FormatRecord {
  storeFormat: number;
  gatewayVersion?: string;
}

/**
 * Refuses data of a newer format, or written by a newer release of the same format (it may hold what this release
 * would not keep up: a field it does not write, a mark of work it does not do). `what`: the data dir or backup, as
 * the sentence names it.
 */
export function refuseNewer(what: string, found: FormatRecord | undefined, current: number = STORE_FORMAT): void {
  if (!found) return;
  const newerRelease = found.gatewayVersion !== undefined && compareVersions(found.gatewayVersion, gatewayVersion) > 0;
  if (found.storeFormat > current || (found.storeFormat === current && newerRelease))
    throw newerFormat(what, found, current);
}

export function newerFormat(what: string, found: FormatRecord, current: number): DataDirFormatError {
  const by = found.gatewayVersion ? ` by leadchat-gateway ${found.gatewayVersion}` : '';
  return new DataDirFormatError(
    `${what} was written${by} in store format ${found.storeFormat}, newer than this gateway (leadchat-gateway ` +
      `${gatewayVersion}) reads (store format ${current}): upgrade the gateway (README, "Upgrades"); nothing was changed`,
  );
}

/** Orders release versions (major.minor.patch, a pre-release before its release): negative, 0 or positive. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = '', pre] = v.split('-', 2);
    return { parts: core.split('.').map((n) => Number.parseInt(n, 10) || 0), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    const diff = (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
    if (diff !== 0) return diff;
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}

/** The format recorded in the data dir; undefined when none is. */
export async function readFormat(dataDir: string): Promise<number | undefined> {
  return (await readRecord(dataDir))?.storeFormat;
}

/** The format file's record; undefined when there is none. */
export async function readRecord(dataDir: string): Promise<FormatRecord | undefined> {
  const file = join(dataDir, FORMAT_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let record: { storeFormat?: unknown; gatewayVersion?: unknown } | undefined;
  try {
    record = JSON.parse(text) as typeof record;
  } catch {
    record = undefined;
  }
  const format = record?.storeFormat;
  if (!Number.isInteger(format) || (format as number) < 1) {
    throw new DataDirFormatError(
      `${file} is damaged (it should read {"storeFormat":<number>}); refusing to open the data dir`,
    );
  }
  const version = typeof record?.gatewayVersion === 'string' ? { gatewayVersion: record.gatewayVersion } : {};
  return { storeFormat: format as number, ...version };
}

/** Written durably: a crash leaves the old format or the new one, never a torn file. */
async function recordFormat(dataDir: string, format: number): Promise<void> {
  await writeFileDurably(join(dataDir, FORMAT_FILE), `${JSON.stringify({ storeFormat: format, gatewayVersion })}\n`);
}

/** Whether an earlier gateway already kept a store here (as opposed to a new, empty data dir). */
async function holdsStore(dataDir: string): Promise<boolean> {
  return stat(join(dataDir, 'store')).then(
    () => true,
    () => false,
  );
}
