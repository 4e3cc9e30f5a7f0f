import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

const REDACT = {
  paths: ['apiKey', 'secret', 'token', 'authorization', '*.apiKey', '*.secret', '*.authorization', '*["x-api-key"]'],
  censor: '[redacted]',
};

/**
 * JSON leaves LINE SEPARATOR and PARAGRAPH SEPARATOR raw in a string, yet many line readers (Python's splitlines(),
 * some log shippers) end a line there: text from outside holding one (a lead's message) would split its entry in
 * two. They are written as their escapes, which JSON reads back as the same characters. Every line passes here (the
 * access log's on every request): a line holding neither, nearly all, is only scanned.
 */
const SEPARATOR = /[\u2028\u2029]/;
const SEPARATORS = /[\u2028\u2029]/g;
const oneLine = (line: string): string =>
  SEPARATOR.test(line) ? line.replace(SEPARATORS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029')) : line;

/**
 * Structured logs on stdout: one JSON object a line, what a log shipper reads, unless stdout is a terminal (`human`),
 * where a person reads one plain line per entry instead. Secrets (API keys, tokens, signatures) are redacted wherever
 * they appear, in both forms. The JSON lines go to `destination` instead when given (a test's capture).
 */
export function createLogger(level: string, human = false, destination?: DestinationStream): Logger {
  const options = { level, base: undefined, redact: REDACT, hooks: { streamWrite: oneLine } };
  if (destination) return pino(options, destination);
  return human ? pino(options, readableLines(process.stdout)) : pino(options);
}

/**
 * What Node itself would print as plain text on stderr, which a log shipper cannot read beside the JSON, as log
 * lines: its warnings (a deprecation, a listener leak), and a fault nothing caught, after which the process exits 1
 * as Node's own printer would have it (its state is unknown: a supervisor starts it again).
 */
export function logProcessOutput(log: Logger): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { code?: string }) =>
    log.warn({ warning: { name: warning.name, code: warning.code, message: warning.message } }, 'process warning'),
  );
  process.on('uncaughtException', (err) => {
    log.fatal({ err }, 'the gateway stopped on a fault nothing caught');
    process.exit(1);
  });
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/**
 * Each JSON line pino writes, as `HH:MM:SS LEVEL message key=value …`, the error's stack on the lines after (an `err`
 * that is no error, with no stack, is a field as any other). Every part goes through `visible`, the stack too: its
 * first line quotes the error's message, which may quote a request.
 */
function readableLines(out: NodeJS.WritableStream): DestinationStream {
  return {
    write(line: string) {
      const { level, time, msg, err, ...fields } = JSON.parse(line) as Record<string, unknown>;
      const at = new Date(Number(time)).toISOString().slice(11, 19);
      const stack = isRecord(err) && typeof err.stack === 'string' ? err.stack : undefined;
      if (err !== undefined && !stack) fields.err = err;
      const facts = Object.entries(fields).map(([key, value]) => ` ${visible(key)}=${readable(value)}`);
      const label = visible(String(LEVELS[Number(level)] ?? level));
      out.write(
        `${at} ${label} ${visible(String(msg ?? ''))}${facts.join('')}\n${stack ? `${stackLines(stack)}\n` : ''}`,
      );
    },
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/**
 * A stack, one line of it a line on the terminal, each set in from the margin: a line break in the error's message
 * (a request's field quoted with one) then starts a line no one takes for an entry of its own, which starts at the
 * margin with its time. Whatever else the lines hold is written as its codes.
 */
const stackLines = (stack: string): string =>
  stack
    .split(/\r?\n/)
    .map((frame) => visible(frame.startsWith(' ') ? frame : `  ${frame}`))
    .join('\n');

/**
 * A field's value as a person reads it: a plain word as it is, anything else quoted. Text from outside (a contact's
 * name, a custom channel's id, a provider's answer) may hold characters a terminal obeys rather than shows, an escape
 * that moves the cursor, clears the screen or retitles the window, or a direction mark that turns the line around:
 * they are written as their `\u` codes, so that the line says what was sent and nothing else.
 */
const readable = (value: unknown): string =>
  typeof value === 'string' && /^[^\s"=\p{C}]+$/u.test(value) ? value : visible(JSON.stringify(value));

const visible = (text: string): string =>
  text.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
