import type { Tx } from '../store/store.js';
import { addressesOf, type Addresses } from './erased-opt-outs.js';
import type { ContactFields, Import, ImportChunk, ImportRow, RowError } from './imports.js';

/**
 * An erasure reaches the imports sent before it whose rows are not all applied yet: a row naming one of the erased
 * contact's phones, emails or IDs (or repeating a row that does) would make the person again, from a file the user
 * sent while they were still a contact. In the erasure's commit such a row, still waiting in its chunk, becomes a
 * refused row naming nobody: the import reports it in `rejected` and `errors` with CONTACT_ERASED, and nothing of the
 * person is left in the chunk. An import sent after the erasure is the user's new word: its rows make the contact.
 */
export async function refuseErasedRows(tx: Tx, contact: Addresses): Promise<void> {
  const erased = new Set(addressesOf(contact));
  const names = (fields: ContactFields) => addressesOf({ accountId: contact.accountId, fromId: null, ...fields });
  const naming = (row: ImportRow): boolean =>
    'code' in row
      ? false
      : 'duplicate' in row
        ? Boolean(row.of && names(row.of.contact).some((a) => erased.has(a)))
        : names(row.contact).some((a) => erased.has(a));
  for (const list of await tx.find<{ id: string }>('lists', 'account', [contact.accountId]))
    for (const running of await tx.find<Import>('imports', 'list', [list.id])) {
      if (running.status === 'done') continue;
      // A chunk applied is gone: what is left is what the import has still to apply.
      for (let position = 0; position < running.chunks; position++) {
        const [chunk] = await tx.find<ImportChunk>('import_chunks', 'position', [running.id, position]);
        if (!chunk?.rows.some(naming)) continue;
        const rows = chunk.rows.map((row) => (naming(row) ? erasedRow(row.row) : row));
        await tx.update<ImportChunk>('import_chunks', chunk.id, { rows });
      }
    }
}

const erasedRow = (row: number): RowError => ({
  row,
  code: 'CONTACT_ERASED',
  message:
    'the contact this row names was erased after the import was sent, so the row was not imported; import it again to add them as a new contact',
});
