import type { RequestHandler } from 'express';

/**
 * Scripts, styles, media and requests only from the console's own origin: an injected `<script>` or inline handler does
 * not run even if markup ever slipped through. No site may frame the console (clickjacking).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  // A voice note or video plays from the gateway's own /v1/media alone, never from the address a contact sent.
  "media-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Set on every console response; assets relax Cache-Control to revalidation, pages and data never get stored. */
export const consoleHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'same-origin',
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  });
  next();
};
