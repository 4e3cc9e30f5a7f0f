import express, { type RequestHandler } from 'express';
import { ApiError } from '../../errors.js';

/**
 * Parses a JSON body up to `limit` bytes. A body of another media type is refused with 415 rather than
 * silently read as empty.
 */
export function jsonBody(limit: number | string = '100kb'): RequestHandler[] {
  const parse = express.json({ limit, strict: true, type: () => true });
  return [
    (req, _res, next) => {
      const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
      if (hasBody && !req.is(['application/json', '+json'])) {
        throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with Content-Type: application/json');
      }
      next();
    },
    parse,
  ];
}
