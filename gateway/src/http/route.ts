import type { IRoute, Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import type { Actor } from '../domain/members.js';
import { ApiError, invalidFields } from '../errors.js';
import { distinct, problemOf } from './issues.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Handlers = Partial<Record<Method, RequestHandler | RequestHandler[]>>;

/** Where paths are registered: a Router, or the app under the API's prefix (see createApp). */
export interface Routes {
  route(path: string): IRoute;
}

/**
 * Registers the handlers of one path, each behind the `before` middleware (auth, rate limit), and answers any
 * other method on it with 405 and an `Allow` header before anything else runs (OPTIONS gets 204).
 */
export function route(routes: Routes, path: string, handlers: Handlers, before: RequestHandler[] = []): void {
  const methods = Object.keys(handlers) as Method[];
  const allow = [...methods.map((m) => m.toUpperCase()), ...(methods.includes('get') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
  const r = routes.route(path);
  for (const method of methods) r[method](...before, ...([handlers[method]].flat() as RequestHandler[]));
  r.options((_req, res) => void res.set('Allow', allow).status(204).end());
  r.all(() => {
    throw new ApiError(405, 'METHOD_NOT_ALLOWED', `Method not allowed; use ${allow.replace(', OPTIONS', '')}`, { Allow: allow });
  });
}

/**
 * Validates a value against a schema; the 400 it throws names every offending field at once ("field: message"
 * each) and lists them in `fields`. Its code is the first issue's.
 */
export function parse<S extends z.ZodType>(schema: S, value: unknown, where = 'body'): z.output<S> {
  const input = value ?? {};
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const { issues } = result.error;
  const fields = distinct(issues.map((issue) => problemOf(issue, input, where)));
  const code = (issues[0] as { params?: { code?: string } }).params?.code ?? 'VALIDATION_ERROR';
  throw invalidFields(code, fields.map((f) => `${f.field}: ${f.message}`), fields);
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

export type { Request, Response };
