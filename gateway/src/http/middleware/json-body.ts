import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';
import { firstFault, type Found } from '../../domain/body-walk.js';
import { textFaultAt, utf8, type TextFault } from '../../domain/storable-text.js';
import { ApiError, badRequest } from '../../errors.js';
import { duplicateKeyIn } from './duplicate-key.js';

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
    if (type && UTF8_ALIAS.test(type)) req.headers['content-type'] = type.replace(UTF8_ALIAS, '$1utf-8$2');
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      const text = textFaultAt(req.body);
      if (text) return next(textRefused(text));
      const proto = protoKeyIn(req.body);
      if (proto !== undefined) return next(protoRefused(proto));
      const bytes = bodies.get(req);
      bodies.delete(req);
      const twice = bytes && duplicateKeyIn(bytes.toString('utf8'), req.body);
      next(twice === undefined ? undefined : twiceRefused(twice));
    });
  };
}

/**
 * The labels of UTF-8 other than "utf-8" (WHATWG Encoding), as a charset parameter: some clients write "utf8", which
 * body-parser, taking only "utf-…" names, would refuse as another charset. The body is then read as the UTF-8 it is.
 */
const UTF8_ALIAS =
  /(;\s*charset\s*=\s*"?)(?:utf8|unicode-1-1-utf-8|unicode11utf8|unicode20utf8|x-unicode20utf8)("?\s*(?:;|$))/i;

/**
 * Bytes that are no UTF-8 would be decoded to U+FFFD and stored as if the sender had written it: the body is
 * checked as it came, before decoding, and refused. JSON travels as UTF-8 (RFC 8259 §8.1); the other UTF charsets
 * body-parser would take (UTF-16, UTF-32) decode bad bytes just as quietly, so they are refused as a media type.
 */
function utf8Only(req: IncomingMessage, _res: unknown, bytes: Buffer, encoding: string): void {
  if (encoding !== 'utf-8' && encoding !== 'utf8')
    throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Request body must be UTF-8 JSON');
  if (!utf8(bytes)) throw badRequest('Request body is not valid UTF-8', 'INVALID_ENCODING');
  bodies.set(req, bytes);
}

/** A body's bytes, from their check until it is parsed, for what only its text tells (a key written twice). */
const bodies = new WeakMap<IncomingMessage, Buffer>();

/**
 * Where a key "__proto__" is in a parsed body, if anywhere. JSON.parse makes it a key like any other, but an object
 * it is copied into takes it as its prototype, and a validator drops it: a label, a custom field or a column so named
 * would be lost or mistaken without a word. It is refused as a field.
 */
function protoKeyIn(body: unknown): string | undefined {
  const found = firstFault(body, (text, isKey) => (isKey && text === '__proto__') || undefined);
  return found && [...found.path, found.key].join('.');
}

/**
 * Text that may not be stored, refused naming where it is: a widget that cuts a message at a length in UTF-16 units
 * cuts an emoji in two now and then, and its developer is told which field holds the half, and that it is one.
 */
function textRefused({ path, key, fault }: Found<TextFault>): ApiError {
  const field = path.join('.') || 'body';
  const what =
    fault === 'nul'
      ? 'must not contain NUL (\\u0000) characters'
      : 'must be valid Unicode: it holds half of a surrogate pair (\\ud800 to \\udfff) without the other, as an emoji cut in two does';
  const message = key === undefined ? what : `a key ${what}`;
  return new ApiError(400, 'VALIDATION_ERROR', `${field}: ${message}`, {}, [{ field, code: 'INVALID', message }]);
}

const protoRefused = (field: string) =>
  new ApiError(400, 'VALIDATION_ERROR', `${field}: must not be "__proto__"`, {}, [
    { field, code: 'INVALID', message: 'must not be "__proto__"' },
  ]);

const twiceRefused = (field: string) =>
  new ApiError(400, 'VALIDATION_ERROR', `${field}: is given twice; give each field once`, {}, [
    { field, code: 'INVALID', message: 'is given twice; give each field once' },
  ]);
