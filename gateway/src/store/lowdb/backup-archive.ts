import { writeFile } from 'node:fs/promises';
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import * as tar from 'tar';

/**
 * The backup archive of an embedded store: a gzip'd tar holding `manifest.json` first, then the data dir's files
 * under `data/` (see snapshot.ts for which). Only regular files and directories: restoring one never creates a link,
 * nor writes outside the directory it fills.
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
}

export class BackupArchiveError extends Error {}

/** Writes the manifest beside the snapshot's `data/` in `dir`, and streams both as the archive. */
export async function packArchive(dir: string, manifest: Manifest): Promise<Readable> {
  await writeFile(`${dir}/${MANIFEST}`, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  // portable: no owner names or ids of this machine in the archive.
  return tar.c({ cwd: dir, gzip: true, portable: true }, [MANIFEST, DATA]) as unknown as Readable;
}

/**
 * Reads the whole archive, checking every entry, and answers its manifest: an archive cut short, damaged, holding
 * anything but files and directories under `data/`, or without a manifest is refused here, before anything is
 * written anywhere.
 */
export async function readArchive(file: string): Promise<Manifest> {
  let text = '';
  let files = 0;
  let refused: string | undefined;
  await explain(file, () =>
    tar.t({
      file,
      strict: true,
      onReadEntry: (entry) => {
        refused ??= problemOf(entry.path, entry.type);
        if (entry.type === 'File' && entry.path.startsWith(`${DATA}/`)) files += 1;
        if (entry.path === MANIFEST) entry.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      },
    }),
  );
  if (refused) throw new BackupArchiveError(`${file} is not a LeadChat gateway backup: ${refused}`);
  const manifest = parseManifest(file, text);
  if (files !== manifest.files) {
    throw new BackupArchiveError(
      `${file} is incomplete: it holds ${files} of the ${manifest.files} files its manifest lists`,
    );
  }
  return manifest;
}

/** Extracts the archive's `data/` into `into` (as `<into>/data`), refusing again whatever readArchive refuses. */
export async function extractArchive(file: string, into: string): Promise<void> {
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
  if (manifest.kind !== ARCHIVE_KIND || !Number.isInteger(manifest.storeFormat) || !Number.isInteger(manifest.files)) {
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
    throw new BackupArchiveError(`${file} cannot be read as a LeadChat gateway backup (${message})`);
  }
}
