import { findContactOf, findOrCreateContactIn } from '../domain/contact-identity.js';
import type { Contact } from '../domain/contacts.js';
import {
  importJob,
  MAX_ERRORS,
  type ContactFields,
  type Import,
  type ImportChunk,
  type ImportRow,
  type RowDuplicate,
  type RowError,
  type RowWarning,
} from '../domain/imports.js';
import { joinList } from '../engine/join-list.js';
import { ApiError } from '../errors.js';
import { now } from '../ids.js';
import type { Job, JobResult, Reader, Tx } from '../store/store.js';
import type { JobKinds } from '../domain/job-kinds.js';
import type { JobContext } from './queue.js';

type Outcome = 'added' | 'alreadyInList' | 'duplicates' | 'rejected';
type Applied = {
  outcome: Outcome;
  unreachable?: boolean;
  error?: RowError;
  warnings?: RowWarning[];
  duplicate?: RowDuplicate;
};

/**
 * Job `import`: applies one chunk of an import's rows in one transaction, which also counts them on the import,
 * removes the chunk and queues the job of the next one (or marks the import done). A run that finds its chunk
 * gone changes nothing: that chunk was applied by a run whose outcome was lost, and the next job is queued.
 * The rows it lists (rejected, warned, repeated) stop at MAX_ERRORS each; their counts go on, so a report says how
 * many more there are.
 */
export async function runImport(gw: JobContext, job: Job<JobKinds['import']>): Promise<JobResult> {
  const { importId, position } = job.data;
  await gw.store.transact(async (tx) => {
    const current = await tx.get<Import>('imports', importId);
    const [chunk] = await tx.find<ImportChunk>('import_chunks', 'position', [importId, position]);
    if (!current || !chunk) return;
    const counts: Record<Outcome | 'unreachable' | 'warnings', number> = {
      added: 0,
      alreadyInList: 0,
      duplicates: 0,
      rejected: 0,
      unreachable: 0,
      warnings: 0,
    };
    const errors: RowError[] = [];
    const warned = current.rowWarnings ?? [];
    const warnings: RowWarning[] = [];
    const repeated = current.rowDuplicates ?? [];
    const duplicates: RowDuplicate[] = [];
    for (const row of chunk.rows) {
      const applied = await applyRow(tx, current, row);
      counts[applied.outcome] += 1;
      if (applied.unreachable) counts.unreachable += 1;
      if (applied.error && current.errors.length + errors.length < MAX_ERRORS) errors.push(applied.error);
      if (applied.warnings?.length) counts.warnings += 1;
      for (const warning of applied.warnings ?? [])
        if (warned.length + warnings.length < MAX_ERRORS) warnings.push(warning);
      if (applied.duplicate && repeated.length + duplicates.length < MAX_ERRORS) duplicates.push(applied.duplicate);
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
      ...(duplicates.length ? { rowDuplicates: [...repeated, ...duplicates] } : {}),
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
 * without something of it (a phone or an email that could not be read, a name other than its contact's) carries its
 * warnings; a refused one only its error; a repeat of an earlier row the contact that row went to.
 */
async function applyRow(tx: Tx, to: Import, row: ImportRow): Promise<Applied> {
  if ('code' in row) return { outcome: 'rejected', error: row };
  if ('duplicate' in row) return { outcome: 'duplicates', duplicate: await repeatOf(tx, to.accountId, row) };
  let contact: Contact;
  let created: boolean;
  try {
    ({ contact, created } = await findOrCreateContactIn(tx, to.accountId, row.contact));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { outcome: 'rejected', error: { row: row.row, code: err.code, message: err.message } };
  }
  const { added, unreachable } = await joinList(tx, to.listId, contact, 'import', to.delayMs);
  // Rows stored before a row could have several warnings hold one.
  const left = (row.warnings ?? (row.warning ? [row.warning] : [])).map((w) => ({ ...w, contactId: contact.id }));
  const named = created ? undefined : otherName(row.row, row.contact, contact);
  const warnings = named ? [...left, named] : left;
  return { outcome: added ? 'added' : 'alreadyInList', unreachable, ...(warnings.length ? { warnings } : {}) };
}

/** The contact an earlier row went to, found as that row found it; a repeat stored before rows named it has none. */
async function repeatOf(
  r: Reader,
  accountId: string,
  row: { row: number; of?: { row: number; contact: ContactFields } },
): Promise<RowDuplicate> {
  if (!row.of) return { row: row.row, of: null, contactId: null };
  const contact = await findContactOf(r, accountId, row.of.contact);
  return { row: row.row, of: row.of.row, contactId: contact?.id ?? null };
}

/** Names are another person's only when a part both give differs: "Ann" is "Ann Smith", "Mia Lee" is not "Noah Lee". */
const samePerson = (given: Array<string | null | undefined>, theirs: Array<string | null | undefined>) =>
  given.every((part, i) => {
    const [a, b] = [(part ?? '').trim().toLowerCase(), (theirs[i] ?? '').trim().toLowerCase()];
    return !a || !b || a === b;
  });

const fullName = (first: string | null | undefined, last: string | null | undefined) =>
  [first, last]
    .map((p) => (p ?? '').trim())
    .filter(Boolean)
    .join(' ');

/**
 * One phone is one contact (spec §4.1): a row naming someone else than the contact its phone (or email, or external
 * ID) belongs to joins that contact, and its name is left out. A warning says so, and how to keep the person apart.
 */
function otherName(row: number, fields: ContactFields, contact: Contact): RowWarning | undefined {
  const given = fullName(fields.firstName, fields.lastName);
  const theirs = fullName(contact.firstName, contact.lastName);
  if (samePerson([fields.firstName, fields.lastName], [contact.firstName, contact.lastName])) return undefined;
  const by =
    fields.phone && fields.phone === contact.phone
      ? `The phone ${fields.phone}`
      : fields.email && fields.email === contact.email
        ? `The email ${fields.email}`
        : 'The external ID';
  return {
    row,
    field: 'name',
    code: 'CONTACT_OF_ANOTHER_NAME',
    message: `${by} is ${theirs}'s: one phone (or email, or external ID) is one contact, so this row went to ${theirs} and "${given}" was left out. To add ${given} as a contact of their own, give them their own phone or email`,
    value: given,
    contactId: contact.id,
  };
}
