import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { ApiError } from '../errors.js';
import type { Logger } from '../log.js';
import { loggedPath } from './logged-path.js';
import type { StoreHealth } from '../store/health.js';
import {
  CommitOutcomeUnknownError,
  StoreConflictError,
  StoreDamagedError,
  StoreUnavailableError,
  StoreWriteError,
} from '../store/store.js';

/**
 * Spec §7: the incoming-message endpoint answers `{error: "message"}`; every other route `{error: {code, message}}`,
 * with `fields` too when the error lists the problems of the request's fields.
 */
const PLAIN_ERROR_PATHS = new Set(['/v1/incoming_custom_channel_message']);

/** Express matches paths case-insensitively and with a trailing slash; so does this. */
export const usesPlainErrors = (url: string) =>
  PLAIN_ERROR_PATHS.has(url.split('?')[0]!.replace(/\/+$/, '').toLowerCase());

export const errorBody = (url: string, err: ApiError) =>
  usesPlainErrors(url)
    ? { error: err.message }
    : {
        error: {
          code: err.code,
          message: err.message,
          ...(err.fields?.length ? { fields: err.fields } : {}),
          ...(err.contactId ? { contactId: err.contactId } : {}),
        },
      };

export function sendError(req: Request, res: Response, err: ApiError): void {
  if (res.headersSent) return void res.end();
  afterBody(req, () => {
    res.set(err.headers);
    res.status(err.status).json(errorBody(req.originalUrl, err));
  });
}

/** The most of an unread body read before a refusal is sent; past it, the refusal is sent and the connection closed. */
const READ_BEFORE_REFUSING = 2 * 1024 * 1024;

/**
 * A refusal given before the body was read (unknown route, missing key, wrong media type) waits until the body has
 * come in: a client still writing it would otherwise meet a closed connection (EPIPE) and never read the answer.
 * A body larger than the bound is not waited for.
 */
function afterBody(req: Request, send: () => void): void {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (req.complete || req.readableFlowing !== null || declared > READ_BEFORE_REFUSING) return send();
  let read = 0;
  let sent = false;
  const once = () => {
    if (sent) return;
    sent = true;
    send();
  };
  req.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > READ_BEFORE_REFUSING) once();
  });
  req.once('end', once).once('close', once).once('error', once);
  req.resume();
}

const isJson = (text: unknown): boolean => {
  if (typeof text !== 'string') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** body-parser failures, translated into the API's own errors. */
function fromBodyParser(err: { type?: string; status?: number; body?: unknown }): ApiError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      // Valid JSON that is no object or list (null, a number, a string): the strict parser refuses it too.
      return new ApiError(
        400,
        'INVALID_JSON',
        isJson(err.body) ? 'Request body must be a JSON object' : 'Request body is not valid JSON',
      );
    case 'entity.too.large':
      return new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Request body must be UTF-8 JSON');
    case 'request.aborted':
      return new ApiError(400, 'REQUEST_ABORTED', 'Request was aborted');
    default:
      return err.status && err.status >= 400 && err.status < 500
        ? new ApiError(
            err.status,
            'UNREADABLE_BODY',
            'The body could not be read: check its Content-Encoding and Content-Length',
          )
        : undefined;
  }
}

/** How long a client is asked to wait before it tries again while the store is away. */
const RETRY_AFTER = { 'Retry-After': '5' };

/**
 * What a 503 for want of the store says is what is known of the change. A read, and any request stopped before it
 * changed anything: the store is unavailable. A change the store certainly did not commit: it was not saved. A change
 * whose commit was sent when the connection broke: it may have been saved, and repeating it is safe only the ways
 * that the API makes safe (the same messageSid, the same Idempotency-Key).
 */
function storeRefusal(req: Request, err: StoreUnavailableError): ApiError {
  if (err instanceof StoreDamagedError) {
    // Retrying helps only once the operator has restored a backup: minutes, not seconds.
    return new ApiError(
      503,
      'STORE_DAMAGED',
      "A file of the store holding what this needs is damaged: the gateway's operator must restore it from a backup (GET /readyz names it)",
      { 'Retry-After': '300' },
    );
  }
  if (err instanceof CommitOutcomeUnknownError) {
    return new ApiError(
      503,
      'COMMIT_OUTCOME_UNKNOWN',
      'The connection to the store broke while the change was being saved: it may have been saved. Repeating the request with the same messageSid or Idempotency-Key is safe',
      RETRY_AFTER,
    );
  }
  if (err instanceof StoreWriteError && req.method !== 'GET' && req.method !== 'HEAD') {
    return new ApiError(
      503,
      'STORE_UNAVAILABLE',
      'The store is unavailable: the change was not saved; retry later',
      RETRY_AFTER,
    );
  }
  return new ApiError(503, 'STORE_UNAVAILABLE', 'The store is unavailable; retry later', RETRY_AFTER);
}

/**
 * The last handler: renders the API's errors, and answers what went wrong elsewhere without telling the caller
 * more than what to do. A refusal for want of the store is counted and logged through the store's health (a few
 * lines per outage, no stack trace: see StoreHealth); any other fault is logged with its stack.
 */
export function errorHandler(log: Logger, health: StoreHealth): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const apiError = err instanceof ApiError ? err : fromBodyParser(err ?? {});
    if (apiError) return sendError(req, res, apiError);
    if (err instanceof StoreConflictError) {
      // A race lost again and again, or a rule without its own check: the record it collided with stands.
      return sendError(
        req,
        res,
        new ApiError(409, 'CONFLICT', 'This conflicts with an existing record; retry to see it'),
      );
    }
    if (err instanceof StoreUnavailableError) {
      const refusal = storeRefusal(req, err);
      health.refused();
      // The route's pattern, never the path: a path may hold a token (an invitation's).
      const route = typeof req.route?.path === 'string' ? `${req.baseUrl}${req.route.path}` : 'unmatched';
      health.report(
        err,
        { method: req.method, route, code: refusal.code },
        'request refused: the store is unavailable',
      );
      return sendError(req, res, refusal);
    }
    log.error({ err, method: req.method, path: loggedPath(req) }, 'request failed');
    sendError(req, res, new ApiError(500, 'INTERNAL', 'Internal error; retry after a short time'));
  };
}

export const notFoundHandler: RequestHandler = (req, res) =>
  sendError(req, res, new ApiError(404, 'NOT_FOUND', `No route ${req.method} ${req.path}`));
