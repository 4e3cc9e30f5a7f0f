import { z } from 'zod';
import { MAX_ERRORS } from '../api-contract.js';
import { success, timestamp } from './shared.js';

export const list = z.object({ id: z.string(), name: z.string(), createdAt: timestamp }).meta({ id: 'List' });

/** POST /v1/lists/{id}/contacts: 201 when added, 200 when the contact was there already. */
export const listAddition = z.object({ success, listId: z.string(), contactId: z.string(), added: z.boolean() });

const count = (description: string) => z.number().int().min(0).describe(description);
const rowProblem = z.object({
  row: z
    .number()
    .int()
    .describe('The row as a spreadsheet shows it (the header is row 1; for `contacts` the position from 1)'),
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
    warnings: count(
      'Rows imported with something of them left out: a phone or an email that could not be read (another of their fields found the contact), or a name other than the contact their phone, email or external ID belongs to',
    ),
    rowWarnings: z
      .array(
        rowProblem.extend({
          field: z.string().describe('What was left out: phone, email or name'),
          value: z
            .string()
            .optional()
            .describe(
              'The text left out, as the row gave it (up to 200 characters; absent on imports from older versions)',
            ),
          contactId: z.string().optional().describe('The contact the row went to'),
        }),
      )
      .max(MAX_ERRORS)
      .describe(
        `The first ${MAX_ERRORS} warnings, one per field left out (a row may have two), each with why (INVALID_PHONE, INVALID_EMAIL, CONTACT_OF_ANOTHER_NAME); \`warnings\` counts the rows`,
      ),
    rowDuplicates: z
      .array(
        z.object({
          row: rowProblem.shape.row,
          of: z.number().int().nullable().describe('The earlier row it repeats (null on imports from older versions)'),
          contactId: z
            .string()
            .nullable()
            .describe(
              'The contact both rows went to (null when the earlier row was rejected, or on imports from older versions)',
            ),
        }),
      )
      .max(MAX_ERRORS)
      .describe(
        `The first ${MAX_ERRORS} rows repeating an earlier row, each with the contact it was merged into; \`duplicates\` counts them all`,
      ),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Import', description: 'An import: queued, running as its rows are applied 500 at a time, then done' });
export type ImportAnswer = z.output<typeof importAnswer>;
