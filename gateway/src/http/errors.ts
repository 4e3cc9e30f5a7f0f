import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { ApiError } from '../errors.js';
import type { Logger } from '../log.js';
import { StoreConflictError, StoreWriteError } from '../store/store.js';

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
    : { error: { code: err.code, message: err.message, ...(err.fields?.length ? { fields: err.fields } : {}) } };

export function sendError(req: Request, res: Response, err: ApiError): void {
  if (res.headersSent) return void res.end();
  res.set(err.headers);
  res.status(err.status).json(errorBody(req.originalUrl, err));
}

/** body-parser failures, translated into the API's own errors. */
function fromBodyParser(err: { type?: string; status?: number; message?: string }): ApiError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return new ApiError(400, 'INVALID_JSON', 'Request body is not valid JSON');
    case 'entity.too.large':
      return new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Request body must be UTF-8 JSON');
    case 'request.aborted':
      return new ApiError(400, 'REQUEST_ABORTED', 'Request was aborted');
    default:
      return err.status && err.status >= 400 && err.status < 500
        ? new ApiError(err.status, 'BAD_REQUEST', 'Bad request')
        : undefined;
  }
}

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const apiError = err instanceof ApiError ? err : fromBodyParser(err ?? {});
    if (apiError) return sendError(req, res, apiError);
    if (err instanceof StoreConflictError) {
      // A race lost again and again, or a rule without its own check: the record it collided with stands.
      return sendError(req, res, new ApiError(409, 'CONFLICT', 'This conflicts with an existing record; retry to see it'));
    }
    if (err instanceof StoreWriteError) {
      log.error({ err }, 'store write failed');
      return sendError(req, res, new ApiError(503, 'STORE_UNAVAILABLE', 'The change could not be saved; retry shortly', { 'Retry-After': '5' }));
    }
    log.error({ err, method: req.method, path: req.path }, 'request failed');
    sendError(req, res, new ApiError(500, 'INTERNAL', 'Internal error; retry after a short time'));
  };
}

export const notFoundHandler: RequestHandler = (req, res) =>
  sendError(req, res, new ApiError(404, 'NOT_FOUND', `No route ${req.method} ${req.path}`));
