import type { Gateway } from '../../context.js';
import { auditLogOf, publicAuditEntry } from '../../domain/audit-log.js';
import { accountPage } from '../paging.js';
import { route, type Routes } from '../route.js';
import { auditLogQuery } from '../schemas.js';

/** The account's audit log, newest first: the owner's and admins' (domain/audit-log.ts). */
export function auditLogRoutes(v1: Routes, gw: Gateway): void {
  route(v1, '/audit-log', {
    get: accountPage(
      gw,
      (account, _req, page, query) =>
        auditLogOf(gw.store, account.id, { action: query.action, actorId: query.actorId }, page),
      publicAuditEntry,
      auditLogQuery,
    ),
  });
}
