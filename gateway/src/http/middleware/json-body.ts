import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';
import { storableText, utf8 } from '../../domain/storable-text.js';
import { ApiError, badRequest } from '../../errors.js';

/**
 * Parses a JSON body up to `limit` bytes. A body of another media type is refused with 415 rather than
 * silently read as empty.
 */
export function jsonBody(limit: number | string = '100kb'): RequestHandler {
  const parse = express.json({ limit, strict: true, type: () => true, verify: utf8Only });
  return (req, res, next) => {
    const { 'content-length': length, 'content-type': type, 'transfer-encoding': chunked } = req.headers;
    const hasBody = Number(length ?? 0) > 0 || chunked !== undefined;
    // The type nearly every client sends is told at once; any other is parsed as a media type.
    if (hasBody && type !== 'application/json' && !req.is(['application/json', '+json'])) {
      throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with Content-Type: application/json');
    }
    parse(req, res, (err?: unknown) => {
      if (err) next(err);
      else if (!storableText(req.body)) next(badRequest('Text must be valid Unicode without NUL (\\u0000) characters'));
      else next();
    });
  };
}

/**
 * Bytes that are no UTF-8 would be decoded to U+FFFD and stored as if the sender had written it: the body is
 * checked as it came, before decoding, and refused. JSON travels as UTF-8 (RFC 8259 §8.1); the other UTF charsets
 * body-parser would take (UTF-16, UTF-32) decode bad bytes just as quietly, so they are refused as a media type.
 */
function utf8Only(_req: IncomingMessage, _res: unknown, bytes: Buffer, encoding: string): void {
  if (encoding !== 'utf-8' && encoding !== 'utf8')
    throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Request body must be UTF-8 JSON');
  if (!utf8(bytes)) throw badRequest('Request body is not valid UTF-8', 'INVALID_ENCODING');
}
