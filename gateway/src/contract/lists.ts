import { z } from 'zod';
import { MAX_ERRORS } from '../api-contract.js';
import { success, timestamp } from './shared.js';

export const list = z.object({ id: z.string(), name: z.string(), createdAt: timestamp }).meta({ id: 'List' });

/** POST /v1/lists/{id}/contacts: 201 when added, 200 when the contact was there already. */
export const listAddition = z.object({ success, listId: z.string(), contactId: z.string(), added: z.boolean() });

const count = (description: string) => z.number().int().min(0).describe(description);
const rowProblem = z.object({
  row: z.number().int().describe('The row as a spreadsheet shows it (the header is row 1; for `contacts` the position from 1)'),
  code: z.string(),
  message: z.string(),
});

export const importAnswer = z
  .object({
    id: z.string(),
    listId: z.string(),
    status: z.enum(['queued', 'running', 'done']),
    total: count('Data rows of the file (blank lines not counted)'),
    processed: count('Rows applied so far'),
    added: count('Contacts added to the list'),
    alreadyInList: count('Rows whose contact was in the list already'),
    duplicates: count('Rows repeating the phone (or email, or first external ID) of an earlier row'),
    rejected: count('Rows not imported'),
    unreachable: count('Rows added that a Live campaign of the list cannot reach'),
    errors: z.array(rowProblem).max(MAX_ERRORS).describe(`The first ${MAX_ERRORS} rejected rows`),
    warnings: count('Rows imported without their phone, which could not be read: their email or external ID found the contact'),
    rowWarnings: z
      .array(rowProblem.extend({ field: z.string() }))
      .max(MAX_ERRORS)
      .describe(`The first ${MAX_ERRORS} rows imported with a warning: the field left out (phone) and why (INVALID_PHONE)`),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Import', description: 'An import: queued, running as its rows are applied 500 at a time, then done' });
export type ImportAnswer = z.output<typeof importAnswer>;
