import type { RequestHandler } from 'express';
import { ApiError } from '../../errors.js';

export const malformedPath = () =>
  new ApiError(
    400,
    'MALFORMED_PATH',
    'The path is not valid: one of its %-escapes is broken or does not decode to UTF-8 text',
  );

/**
 * A path whose %-escapes are broken (`%E0%A4%A`) or decode to bytes that are not UTF-8 names nothing: it is refused
 * with 400 MALFORMED_PATH before any route reads it, rather than failing where a route decodes its parameters (which
 * would blame the body). A path without a `%` is not looked at.
 */
export const readablePath: RequestHandler = (req, _res, next) => {
  const end = req.url.indexOf('?');
  const path = end < 0 ? req.url : req.url.slice(0, end);
  if (path.includes('%')) {
    try {
      decodeURIComponent(path);
    } catch {
      throw malformedPath();
    }
  }
  next();
};
