import type { Request } from 'express';
import { ApiError } from '../errors.js';
import type { ByteSpan } from '../store/store.js';

/** One range of bytes (`bytes=0-499`, `bytes=500-`, `bytes=-500`): the only kind answered in part. */
const ONE_BYTE_RANGE = /^bytes=[ \t]*(\d*)[ \t]*-[ \t]*(\d*)[ \t]*$/i;

/**
 * The part of a file of `size` bytes a request's Range asks for (RFC 9110 §14), read by Express's range parser:
 * `undefined` for the whole file, or the first and last byte to answer with 206. A browser asks for a part to seek in
 * a recording, and Safari plays audio and video only from a server that answers parts. What is not one valid range of
 * bytes (no Range, a malformed one, another unit, several ranges) is answered whole, as §14.2 allows; so is a Range
 * under If-Range, whose validator a kept file has none to match. A range that starts past the end is 416.
 */
export function byteRange(req: Request, size: number): ByteSpan | undefined {
  const spec = ONE_BYTE_RANGE.exec(req.get('Range') ?? '');
  if (!spec || req.get('If-Range') !== undefined) return undefined;
  const [, first = '', last = ''] = spec;
  if ((!first && !last) || (first && last && BigInt(last) < BigInt(first))) return undefined;
  const ranges = req.range(size);
  if (Array.isArray(ranges) && ranges.length === 1) return ranges[0];
  // The parser refuses a suffix longer than the file; §14.1.3 answers the whole file for it.
  if (!first && Number(last) > 0 && size > 0) return { start: 0, end: size - 1 };
  throw new ApiError(
    416,
    'RANGE_NOT_SATISFIABLE',
    `Range: the file has ${size} bytes, none of them in the range asked for`,
    { 'Content-Range': `bytes */${size}`, 'Accept-Ranges': 'bytes' },
  );
}
