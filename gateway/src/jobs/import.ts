import { findOrCreateContactIn } from '../domain/contact-identity.js';
import { importJob, MAX_ERRORS, type Import, type ImportChunk, type ImportRow, type RowError, type RowWarning } from '../domain/imports.js';
import { joinList } from '../engine/join-list.js';
import { ApiError } from '../errors.js';
import { now } from '../ids.js';
import type { Job, JobResult, Tx } from '../store/store.js';
import type { JobKinds } from '../domain/job-kinds.js';
import type { JobContext } from './queue.js';

type Outcome = 'added' | 'alreadyInList' | 'duplicates' | 'rejected';
type Applied = { outcome: Outcome; unreachable?: boolean; error?: RowError; warning?: RowWarning };

/**
 * Job `import`: applies one chunk of an import's rows in one transaction, which also counts them on the import,
 * removes the chunk and queues the job of the next one (or marks the import done). A run that finds its chunk
 * gone changes nothing: that chunk was applied by a run whose outcome was lost, and the next job is queued.
 */
export async function runImport(gw: JobContext, job: Job<JobKinds['import']>): Promise<JobResult> {
  const { importId, position } = job.data;
  await gw.store.transact(async (tx) => {
    const current = await tx.get<Import>('imports', importId);
    const [chunk] = await tx.find<ImportChunk>('import_chunks', 'position', [importId, position]);
    if (!current || !chunk) return;
    const counts: Record<Outcome | 'unreachable' | 'warnings', number> = { added: 0, alreadyInList: 0, duplicates: 0, rejected: 0, unreachable: 0, warnings: 0 };
    const errors: RowError[] = [];
    const warned = current.rowWarnings ?? [];
    const warnings: RowWarning[] = [];
    for (const row of chunk.rows) {
      const { outcome, unreachable, error, warning } = await applyRow(tx, current, row);
      counts[outcome] += 1;
      if (unreachable) counts.unreachable += 1;
      if (error && current.errors.length + errors.length < MAX_ERRORS) errors.push(error);
      if (warning) counts.warnings += 1;
      if (warning && warned.length + warnings.length < MAX_ERRORS) warnings.push(warning);
    }
    const last = position + 1 >= current.chunks;
    await tx.update<Import>('imports', importId, {
      status: last ? 'done' : 'running',
      processed: current.processed + chunk.rows.length,
      added: current.added + counts.added,
      alreadyInList: current.alreadyInList + counts.alreadyInList,
      duplicates: current.duplicates + counts.duplicates,
      rejected: current.rejected + counts.rejected,
      unreachable: (current.unreachable ?? 0) + counts.unreachable,
      warnings: (current.warnings ?? 0) + counts.warnings,
      ...(errors.length ? { errors: [...current.errors, ...errors] } : {}),
      ...(warnings.length ? { rowWarnings: [...warned, ...warnings] } : {}),
      updatedAt: now(),
    });
    await tx.remove('import_chunks', chunk.id);
    if (!last) await tx.enqueue(importJob(current, position + 1));
  });
}

/**
 * A row's contact joins the list as by POST /contacts and POST /lists/{id}/contacts, with `source: 'import'`, so
 * an imported contact counts as an addition to the list for its Live campaigns (spec §3.2). A row whose external ID
 * another contact holds is refused as POST /contacts refuses it, before anything of it is written. A row imported
 * without something of it (a phone that could not be read) carries its warning; a refused one only its error.
 */
async function applyRow(tx: Tx, to: Import, row: ImportRow): Promise<Applied> {
  if ('code' in row) return { outcome: 'rejected', error: row };
  if ('duplicate' in row) return { outcome: 'duplicates' };
  let contact;
  try {
    ({ contact } = await findOrCreateContactIn(tx, to.accountId, row.contact));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { outcome: 'rejected', error: { row: row.row, code: err.code, message: err.message } };
  }
  const { added, unreachable } = await joinList(tx, to.listId, contact, 'import', to.delayMs);
  return { outcome: added ? 'added' : 'alreadyInList', unreachable, ...(row.warning ? { warning: row.warning } : {}) };
}
