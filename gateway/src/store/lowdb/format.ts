import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
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
  const recorded = await readFormat(dataDir);
  if (recorded !== undefined && recorded > current) throw newerFormat(`the data dir ${dataDir}`, recorded, current);
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
  if (done.length > 0) {
    log.info(
      { dataDir, from: recorded ?? 'unversioned', to: current, steps: done },
      `data dir upgraded to store format ${current}: ${done.join('; ')}`,
    );
  }
}

/** `what`: the data dir or backup refused, as the sentence names it. */
export function newerFormat(what: string, found: number, current: number): DataDirFormatError {
  return new DataDirFormatError(
    `${what} is in store format ${found}, newer than this gateway reads (format ${current}): upgrade the gateway ` +
      '(README, "Upgrades"); nothing was changed',
  );
}

/** The format recorded in the data dir; undefined when none is. */
export async function readFormat(dataDir: string): Promise<number | undefined> {
  const file = join(dataDir, FORMAT_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let format: unknown;
  try {
    format = (JSON.parse(text) as { storeFormat?: unknown }).storeFormat;
  } catch {
    format = undefined;
  }
  if (!Number.isInteger(format) || (format as number) < 1) {
    throw new DataDirFormatError(
      `${file} is damaged (it should read {"storeFormat":<number>}); refusing to open the data dir`,
    );
  }
  return format as number;
}

/** Written durably: a crash leaves the old format or the new one, never a torn file. */
async function recordFormat(dataDir: string, format: number): Promise<void> {
  await writeFileDurably(join(dataDir, FORMAT_FILE), `${JSON.stringify({ storeFormat: format })}\n`);
}

/** Whether an earlier gateway already kept a store here (as opposed to a new, empty data dir). */
async function holdsStore(dataDir: string): Promise<boolean> {
  return stat(join(dataDir, 'store')).then(
    () => true,
    () => false,
  );
}
