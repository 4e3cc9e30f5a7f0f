import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Gateway } from '../../context.js';
import { clockNow } from '../../clock.js';

/** A browser stays known this long after its last sign-in to the email. */
export const KNOWN_BROWSER_MS = 90 * 24 * 60 * 60_000;
const MAC_BYTES = 16;
const SHAPE = /^([\w-]{22})\.(\d{1,15})\.([\w-]{22})$/;

/**
 * A browser that signed in to an email before carries proof of it: a random id, when it last signed in, and a MAC
 * of both with the email, made with a key derived from the deployment's own (so every process checks it, and
 * nothing is stored). A stranger who knows the email has no such proof: the email's shared budget of guesses
 * holds them, while the known browser keeps a budget of its own (the device cookies of OWASP's guidance on
 * slowing down online guessing).
 */
const keyOf = (gw: Pick<Gateway, 'cursorKey'>) => createHmac('sha256', gw.cursorKey).update('known-browser').digest();

const macOf = (gw: Pick<Gateway, 'cursorKey'>, email: string, id: string, issuedAt: string) =>
  createHmac('sha256', keyOf(gw)).update(`${email}\n${id}\n${issuedAt}`).digest().subarray(0, MAC_BYTES);

/** The browser's id when its cookie proves an earlier sign-in to `email` within KNOWN_BROWSER_MS; else undefined. */
export function knownBrowserId(
  gw: Pick<Gateway, 'cursorKey'>,
  email: string,
  cookie: string | undefined,
): string | undefined {
  const [, id, issuedAt, mac] = SHAPE.exec(cookie ?? '') ?? [];
  if (!id || !issuedAt || !mac) return undefined;
  if (Number(issuedAt) + KNOWN_BROWSER_MS <= clockNow()) return undefined;
  const given = Buffer.from(mac, 'base64url');
  return given.length === MAC_BYTES && timingSafeEqual(given, macOf(gw, email, id, issuedAt)) ? id : undefined;
}

/** The cookie's value after a sign-in to `email`: the browser's id kept (or a new one), the time renewed. */
export function knownBrowserValue(
  gw: Pick<Gateway, 'cursorKey'>,
  email: string,
  id = randomBytes(16).toString('base64url'),
): string {
  const issuedAt = String(clockNow());
  return `${id}.${issuedAt}.${macOf(gw, email, id, issuedAt).toString('base64url')}`;
}
