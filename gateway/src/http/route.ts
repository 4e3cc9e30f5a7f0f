import type { IRoute, Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import type { AuditBy } from '../domain/audit-log.js';
import type { Actor } from '../domain/members.js';
import { ApiError, invalidFields } from '../errors.js';
import { accessOf, type Access, type HttpMethod } from './access.js';
import { apiWords, distinct, problemsOf } from './issues.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Handlers = Partial<Record<Method, RequestHandler | RequestHandler[]>>;

/** The middleware that admits exactly the callers of each access level (authentication, rate limit, role). */
export type Guards = Partial<Record<Access, RequestHandler[]>>;

/** Where paths are registered (a Router, or the app itself), under which prefix, with which guards. */
export interface Routes {
  /** The path these routes hang from, as a client sees it: `/v1`, `/admin/v1`, `/console/api`. */
  prefix: string;
  route(path: string): IRoute;
  guards: Guards;
}

/** Routes hung from the app itself under `prefix`: a request then walks no router of its own. */
export const appRoutes = (app: { route(path: string): IRoute }, prefix: string, guards: Guards): Routes => ({
  prefix,
  guards,
  route: (path) => app.route(`${prefix}${path}`),
});

/** Routes of a Router that is mounted at `mountedAt`. */
export const routerRoutes = (router: { route(path: string): IRoute }, mountedAt: string, guards: Guards): Routes => ({
  prefix: mountedAt,
  guards,
  route: (path) => router.route(path),
});

/**
 * Registers the handlers of one path, each behind the guard of the level the access table gives it (see
 * access.ts), and answers any other method on it with 405 and an `Allow` header before anything else runs (OPTIONS
 * gets 204). A method the table does not list cannot be registered: the gateway does not start.
 */
export function route(routes: Routes, path: string, handlers: Handlers): void {
  const methods = Object.keys(handlers) as Method[];
  const allow = [...methods.map((m) => m.toUpperCase()), ...(methods.includes('get') ? ['HEAD'] : []), 'OPTIONS'].join(
    ', ',
  );
  const r = routes.route(path);
  for (const method of methods) {
    const name = `${method.toUpperCase()} ${routes.prefix}${path}`;
    const access = accessOf(`${routes.prefix}${path}`, method.toUpperCase() as HttpMethod);
    if (!access) throw new Error(`${name} has no access level in http/access.ts`);
    const guard = routes.guards[access];
    if (!guard) throw new Error(`${name} is "${access}", which ${routes.prefix || 'the app'} cannot check`);
    r[method](...guard, ...([handlers[method]].flat() as RequestHandler[]));
  }
  r.options((_req, res) => void res.set('Allow', allow).status(204).end());
  r.all(() => {
    throw new ApiError(405, 'METHOD_NOT_ALLOWED', `Method not allowed; use ${allow.replace(', OPTIONS', '')}`, {
      Allow: allow,
    });
  });
}

/**
 * A query without its `apiKey`: the key may ride there (spec §5.3), and it is the authentication's, read before the
 * route runs, never a parameter of the operation, which would refuse it as one it does not know.
 */
function withoutKey(query: unknown): object {
  const { apiKey: _apiKey, ...rest } = (query ?? {}) as Record<string, unknown>;
  return rest;
}

/**
 * Validates a value against a schema; the 400 it throws names every offending field at once ("field: message"
 * each) and lists them in `fields`. Its code is the first issue's.
 */
export function parse<S extends z.ZodType>(schema: S, value: unknown, where = 'body'): z.output<S> {
  const input = where === 'query' ? withoutKey(value) : (value ?? {});
  const result = schema.safeParse(input, { error: apiWords });
  if (result.success) return result.data;
  const { issues } = result.error;
  const fields = distinct(issues.flatMap((issue) => problemsOf(issue, input, where)));
  const code = (issues[0] as { params?: { code?: string } }).params?.code ?? 'VALIDATION_ERROR';
  throw invalidFields(
    code,
    fields.map((f) => `${f.field}: ${f.message}`),
    fields,
  );
}

/**
 * Answers a read. What the handler read may belong to a commit still on its way to disk: the answer waits until
 * it is durable, so nothing a client was shown can be lost by a crash.
 */
export async function sendDurable(gw: Gateway, res: Response, body: unknown): Promise<void> {
  await gw.store.durable();
  res.json(body);
}

/** The authenticated account, set by the auth middleware. */
export function accountOf(res: Response): Account {
  return res.locals.account;
}

/** Who acts: the signed-in member, or the owner (a console session of the owner, or the account's API key). */
export function actorOf(res: Response): Actor {
  return res.locals.actor;
}

/** Whether the request came with a console session rather than the API key. */
export const bySession = (res: Response): boolean => res.locals.sessionId !== undefined;

/** Who the audit log names for this request's change: the signed-in member, or the API key (a workflow). */
export const auditBy = (res: Response): AuditBy => ({
  accountId: accountOf(res).id,
  actor: bySession(res)
    ? { type: 'member', id: actorOf(res).id, name: actorOf(res).name }
    : { type: 'api_key', id: null, name: 'API key' },
});

export type { Request, Response };
