import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { pageProblem } from './pages.js';

/**
 * The backup archive of an embedded store: a gzip'd tar holding `manifest.json` first, then the data dir's files
 * under `data/` (see snapshot.ts for which). Only regular files and directories: restoring one never creates a link,
 * nor writes outside the directory it fills. The manifest keeps the SHA-256 of every file, so that a damaged archive
 * is refused naming the file, and every store page is checked as a page too (its own check of its documents), so
 * that no backup is taken of a damaged store and an archive older than checksums is checked all the same.
 */

export const ARCHIVE_KIND = 'leadchat-gateway backup';
const MANIFEST = 'manifest.json';
export const DATA = 'data';

export interface Manifest {
  kind: typeof ARCHIVE_KIND;
  /** The data dir's format (format.ts): a gateway restores only an archive of a format it reads. */
  storeFormat: number;
  gatewayVersion: string;
  /** The snapshot point, ISO 8601 UTC. */
  createdAt: string;
  /** Files under `data/`: a restore that finds fewer was given an archive cut short. */
  files: number;
  /**
   * The SHA-256 (hex) of every file, by its path in the archive (`data/store/contacts/0.json`). Absent from the
   * archives of releases before it was kept: those are checked by their structure alone.
   */
  checksums?: Record<string, string>;
}

/** The manifest as the commands print it: its checksums counted, not listed. */
export function manifestSummary({ checksums, ...rest }: Manifest): Omit<Manifest, 'checksums'> & {
  checksums: number | null;
} {
  return { ...rest, checksums: checksums ? Object.keys(checksums).length : null };
}

/** A store page's path in an archive: `data/store/<collection>/<n>.json`. */
const PAGE_PATH = /^data\/store\/[A-Za-z0-9_-]+\/\d+\.json$/;

export class BackupArchiveError extends Error {}

/**
 * Writes the manifest beside the snapshot's `data/` in `dir`, with the checksum of every file, and streams both as the
 * archive. A store page that is not as the store wrote it is refused (BackupArchiveError naming it): a backup of it
 * would restore the damage.
 */
export async function packArchive(dir: string, manifest: Manifest): Promise<Readable> {
  const tar = await import('tar');
  const checksums = await checksumTree(dir, DATA);
  await writeFile(`${dir}/${MANIFEST}`, `${JSON.stringify({ ...manifest, checksums }, null, 2)}\n`, { mode: 0o600 });
  // portable: no owner names or ids of this machine in the archive. Compressed by Node's zlib stream, on the thread
  // pool: tar's own gzip compresses on the calling thread, which for a running gateway is the one serving requests.
  // Level 1: a store's JSON compresses nearly as well as at the default level 6 (7 % larger) in two thirds the time.
  const tarball = tar.c({ cwd: dir, portable: true }, [MANIFEST, DATA]) as unknown as Readable;
  const gzip = createGzip({ level: 1 });
  pipeline(tarball, gzip).catch((err: Error) => gzip.destroy(err));
  return gzip;
}

/**
 * Reads the whole archive, checking every entry, and answers its manifest: an archive cut short, damaged, holding
 * anything but files and directories under `data/`, or without a manifest is refused here, before anything is
 * written anywhere.
 */
export async function readArchive(file: string): Promise<Manifest> {
  const tar = await import('tar');
  let text = '';
  let files = 0;
  let refused: string | undefined;
  const found: Record<string, string> = {};
  const pages: Record<string, string> = {};
  await explain(file, () =>
    tar.t({
      file,
      strict: true,
      onReadEntry: (entry) => {
        refused ??= problemOf(entry.path, entry.type);
        if (entry.type === 'File' && entry.path.startsWith(`${DATA}/`)) {
          files += 1;
          const hash = createHash('sha256');
          const page: Buffer[] | undefined = PAGE_PATH.test(entry.path) ? [] : undefined;
          entry.on('data', (chunk: Buffer) => {
            hash.update(chunk);
            page?.push(chunk);
          });
          entry.on('end', () => {
            found[entry.path] = hash.digest('hex');
            const problem = page && pageProblem(Buffer.concat(page));
            if (problem) pages[entry.path] = problem;
          });
        }
        if (entry.path === MANIFEST) entry.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      },
    }),
  );
  if (refused) throw new BackupArchiveError(`${file} is not a LeadChat gateway backup: ${refused}`);
  const manifest = parseManifest(file, text);
  if (manifest.checksums) checkFiles(file, manifest.checksums, found);
  else if (files !== manifest.files) {
    throw new BackupArchiveError(
      `${file} is incomplete: it holds ${files} of the ${manifest.files} files its manifest lists`,
    );
  }
  const [damagedPage, problem] = Object.entries(pages)[0] ?? [];
  if (damagedPage)
    throw new BackupArchiveError(`${file} is damaged: its ${damagedPage} is not a store page (${problem})`);
  return manifest;
}

/**
 * Holds the files `found` (their SHA-256 by path) to the manifest's `checksums`: refused, naming the first file that
 * differs, is missing or was added. `what` names the archive, or the directory restored from it.
 */
function checkFiles(what: string, checksums: Record<string, string>, found: Record<string, string>): void {
  for (const [path, sum] of Object.entries(checksums)) {
    if (found[path] === undefined)
      throw new BackupArchiveError(`${what} is incomplete: it lacks ${path}, which its manifest lists`);
    if (found[path] !== sum)
      throw new BackupArchiveError(`${what} is damaged: ${path} does not match the SHA-256 its manifest keeps of it`);
  }
  const added = Object.keys(found).find((path) => checksums[path] === undefined);
  if (added) throw new BackupArchiveError(`${what} holds ${added}, which its manifest does not list`);
}

/**
 * Checks the files extracted from an archive into `into` against its manifest, as they are on disk now: what a
 * restore moves into place is what was backed up. An archive without checksums is checked by its pages alone.
 */
export async function checkExtracted(into: string, manifest: Manifest): Promise<void> {
  const found = await checksumTree(into, DATA);
  if (manifest.checksums) checkFiles(`the files restored into ${into}`, manifest.checksums, found);
}

/**
 * The SHA-256 of every file under `<root>/<relative>`, by its path from `root`; store pages are checked as pages on
 * the way (BackupArchiveError naming the first that is not one).
 */
async function checksumTree(root: string, relative: string): Promise<Record<string, string>> {
  const sums: Record<string, string> = {};
  const walk = async (at: string): Promise<void> => {
    for (const entry of await readdir(join(root, at), { withFileTypes: true })) {
      const path = posix.join(at, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (PAGE_PATH.test(path)) {
        const content = await readFile(join(root, path));
        const problem = pageProblem(content);
        if (problem) throw new BackupArchiveError(`the store's page ${path} is damaged (${problem})`);
        sums[path] = createHash('sha256').update(content).digest('hex');
      } else sums[path] = await sha256Of(join(root, path));
    }
  };
  await walk(relative);
  return sums;
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Extracts the archive's `data/` into `into` (as `<into>/data`), refusing again whatever readArchive refuses. */
export async function extractArchive(file: string, into: string): Promise<void> {
  const tar = await import('tar');
  let refused: string | undefined;
  await explain(file, () =>
    tar.x({
      file,
      cwd: into,
      strict: true,
      preserveOwner: false,
      filter: (path, entry) => {
        const problem = problemOf(path, 'type' in entry ? entry.type : 'File');
        refused ??= problem;
        return problem === undefined && path !== MANIFEST;
      },
    }),
  );
  if (refused) throw new BackupArchiveError(`${file} is not a LeadChat gateway backup: ${refused}`);
}

/** Why an entry has no place in a backup; undefined when it has one. */
function problemOf(path: string, type: string): string | undefined {
  const name = path.replace(/\/$/, '');
  if (type !== 'File' && type !== 'Directory')
    return `it holds "${path}", of type ${type} (a backup holds only files and directories)`;
  const unsafe =
    name.startsWith('/') || /^[A-Za-z]:/.test(name) || name.includes('\\') || name.split('/').includes('..');
  if (unsafe || posix.normalize(name) !== name)
    return `it holds the path "${path}", which leads outside the directory restored into`;
  if (name !== MANIFEST && name !== DATA && !name.startsWith(`${DATA}/`)) return `it holds "${path}", outside ${DATA}/`;
  if (name === MANIFEST && type !== 'File') return `its ${MANIFEST} is not a file`;
  return undefined;
}

function parseManifest(file: string, text: string): Manifest {
  let manifest: Partial<Manifest>;
  try {
    manifest = JSON.parse(text) as Partial<Manifest>;
  } catch {
    throw new BackupArchiveError(`${file} is not a LeadChat gateway backup: it has no readable ${MANIFEST}`);
  }
  const checksums = manifest.checksums;
  const listed =
    checksums === undefined ||
    (typeof checksums === 'object' &&
      checksums !== null &&
      Object.values(checksums).every((sum) => typeof sum === 'string'));
  if (
    manifest.kind !== ARCHIVE_KIND ||
    !Number.isInteger(manifest.storeFormat) ||
    !Number.isInteger(manifest.files) ||
    !listed
  ) {
    throw new BackupArchiveError(`${file} is not a LeadChat gateway backup: its ${MANIFEST} is not one of a backup`);
  }
  return manifest as Manifest;
}

/** A read error of the archive (not gzip, cut short, a damaged header) as one sentence naming the file. */
async function explain(file: string, read: () => Promise<void>): Promise<void> {
  try {
    await read();
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException;
    if (code === 'ENOENT') throw new BackupArchiveError(`${file} does not exist`);
    if (code === 'EISDIR') throw new BackupArchiveError(`${file} is a directory, not a backup archive`);
    if (await isPgDump(file)) {
      throw new BackupArchiveError(
        `${file} is a PostgreSQL dump (pg_dump), not a LeadChat gateway backup: check it with pg_restore --list (README, "Backups")`,
      );
    }
    throw new BackupArchiveError(`${file} cannot be read as a LeadChat gateway backup (${message})`);
  }
}

/** Whether the file starts as pg_dump's archives do (custom format) or as its plain SQL does. */
async function isPgDump(file: string): Promise<boolean> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return false;
  try {
    const head = Buffer.alloc(64);
    const { bytesRead } = await handle.read(head, 0, 64, 0);
    const text = head.subarray(0, bytesRead).toString('latin1');
    return text.startsWith('PGDMP') || text.startsWith('--\n-- PostgreSQL database dump');
  } finally {
    await handle.close();
  }
}
