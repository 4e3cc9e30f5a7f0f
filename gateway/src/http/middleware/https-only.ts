import type { RequestHandler } from 'express';
import { ApiError } from '../../errors.js';

export const httpsRequired = () =>
  new ApiError(400, 'HTTPS_REQUIRED', 'Plain HTTP is not accepted; send the request over HTTPS');

/**
 * Spec §5.4. The TLS listener refuses plain HTTP before it reaches Express (see server.ts); behind a
 * TLS-terminating proxy (the only place this is mounted), the proxy's X-Forwarded-Proto is the truth.
 */
export function httpsOnly(): RequestHandler {
  return (req, _res, next) => {
    if (req.protocol !== 'https') throw httpsRequired();
    next();
  };
}
