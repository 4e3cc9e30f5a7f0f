import { IMPORT_MAX_BODY_BYTES, IMPORT_MAX_BYTES } from '../../api-contract.js';
import type { Gateway } from '../../context.js';
import { identifiable } from '../../domain/contact-identity.js';
import type { ContactInput } from '../../domain/contacts.js';
import { createImport, getImport, importsOf, publicImport, type ImportSource } from '../../domain/imports.js';
import { ApiError, badRequest } from '../../errors.js';
import { jsonBody } from '../middleware/json-body.js';
import { accountPage } from '../paging.js';
import { idempotentAnswer } from '../idempotent-answer.js';
import { accountOf, parse, route, sendDurable, type Routes } from '../route.js';
import { contactCreate, importCreate } from '../schemas.js';

/**
 * Each row is read exactly as POST /contacts reads its body, so a row is refused for what would refuse the
 * contact, with the same code; a row with neither phone, email nor external ID says so by its own code.
 */
function readContact(fields: unknown): ContactInput {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields))
    throw badRequest('row: must be an object of contact fields');
  const {
    phone,
    phone_number: phoneNumber,
    email,
    externalIds,
    external_ids: externalIdsSnake,
  } = fields as Record<string, unknown>;
  if (!identifiable({ phone: phone || phoneNumber, email, externalIds: externalIds ?? externalIdsSnake }))
    throw badRequest('the row has neither a phone, an email nor an external ID', 'MISSING_IDENTIFIER');
  return parse(contactCreate, fields, 'row');
}

/** The file's size as a user sees it (the CSV text in UTF-8, the contact objects as JSON), held to the limit. */
function withinLimit(csv: string | undefined, contacts: unknown[] | undefined): void {
  const bytes = csv !== undefined ? Buffer.byteLength(csv) : Buffer.byteLength(JSON.stringify(contacts ?? []));
  if (bytes <= IMPORT_MAX_BYTES) return;
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(1).replace(/\.0$/, '')} MB`;
  const what = csv !== undefined ? 'csv: the file is' : 'contacts: the contacts are';
  throw new ApiError(
    413,
    'PAYLOAD_TOO_LARGE',
    `${what} ${mb(bytes)}; an import takes at most ${mb(IMPORT_MAX_BYTES)}: split it and import each part`,
  );
}

export function importsRoutes(v1: Routes, gw: Gateway): void {
  route(v1, '/lists/:listId/imports', {
    post: [
      jsonBody(IMPORT_MAX_BODY_BYTES),
      async (req, res) => {
        const { csv, columns, delimiter, contacts, delay } = parse(importCreate, req.body);
        withinLimit(csv, contacts);
        const source: ImportSource =
          csv !== undefined ? { csv, columns: columns!, delimiter } : { contacts: contacts! };
        const account = accountOf(res);
        // An import whose answer was lost, sent again with its Idempotency-Key, runs once: no second job reading the
        // same rows into the list.
        type Made = ReturnType<typeof publicImport>;
        const { status, response } = await idempotentAnswer<Made>(gw, req, res, account.id, 202, async (keep) =>
          publicImport(
            await createImport(gw, account, String(req.params.listId), source, readContact, delay, (tx, made) =>
              keep(tx, publicImport(made)),
            ),
          ),
        );
        res.status(status).location(`/v1/imports/${response.id}`).json(response);
      },
    ],
    get: accountPage(
      gw,
      (account, req, page) => importsOf(gw.store, account.id, String(req.params.listId), page),
      publicImport,
    ),
  });
  route(v1, '/imports/:id', {
    get: async (req, res) => {
      await sendDurable(gw, res, publicImport(await getImport(gw.store, accountOf(res).id, String(req.params.id))));
    },
  });
}
