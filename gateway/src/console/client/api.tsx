import type { FieldProblem } from '../../api-contract.js';
import { SIGN_IN_PATH } from '../pages.js';

/**
 * The console's one way to the gateway: same-origin requests that carry the session cookie, and on every change
 * the session's CSRF token. Errors come back as the API's own message, to be shown as text next to the form, with
 * the problems of each field when the API lists them (for the form to name by its labels: components/problems).
 */
export interface ApiResult<T> {
  ok: boolean;
  status: number;
  data?: T;
  error?: string;
  problems?: FieldProblem[];
  /** The API's error code (`CONTACT_EXISTS`), for a form that offers a way on from one refusal. */
  code?: string;
  /** On 409 CONTACT_EXISTS: the other contact, which holds the phone or email. */
  contactId?: string;
}

export const SESSION_PATH = '/console/api/session';

/** The session's CSRF token, and whose session it is. */
let csrfToken = '';
let memberId = '';
export const setCsrfToken = (token: string, member: string): void => {
  csrfToken = token;
  memberId = member;
  sessionBack();
};

let leaving = false;

/**
 * Leaves the signed-in console for `url`, once: a request answered 401 while the page is already on its way out
 * (signed out, its session gone) must not start a second navigation that cancels the first. The way out is taken
 * before `first` runs (ending the session), so that the 401s it causes lead nowhere else, such as back to this page
 * after the next sign-in.
 */
export async function leaveFor(url: string, first?: () => Promise<unknown>): Promise<void> {
  if (leaving) return;
  leaving = true;
  await first?.();
  location.assign(url);
}

/** The sign-in page, leading back to this page's address, query and all (the conversation or campaign open). */
export const signInAddress = (): string =>
  `${SIGN_IN_PATH}?next=${encodeURIComponent(location.pathname + location.search)}`;

/** Leaves for the sign-in page, coming back here afterwards. */
export function toSignIn(): void {
  void leaveFor(signInAddress());
}

/**
 * Who asks for the password again in place when the session ends under a page (components/session-ended): what was
 * typed there stays. With nobody to ask (no signed-in page drawn yet), the page leaves for the sign-in page.
 */
const endedListeners = new Set<(ended: boolean) => void>();
export function onSessionEnded(listener: (ended: boolean) => void): () => void {
  endedListeners.add(listener);
  return () => endedListeners.delete(listener);
}
let ended = false;
/** Whether the session ended under this page and nobody signed in again yet: for a prompt drawn since. */
export const sessionHasEnded = (): boolean => ended;
function sessionEnded(): void {
  if (leaving) return;
  if (endedListeners.size === 0) return toSignIn();
  ended = true;
  endedListeners.forEach((listener) => listener(true));
}
/** Signed in again, on this page or in another tab of the browser (whose cookie this page shares). */
function sessionBack(): void {
  if (!ended) return;
  ended = false;
  endedListeners.forEach((listener) => listener(false));
}
const UNREACHABLE = 'The gateway cannot be reached. Check the connection and try again.';
const SESSION_ENDED = 'Your session has ended: sign in again at the top of the page, then try again.';

/**
 * Someone to tell when the console waits before it reads again: the seconds it waits (0 when it is over), and why:
 * its rate limit, or the gateway away for a moment (its store unavailable, 503 with a short Retry-After).
 */
export type BusyWhy = 'rate' | 'away';
type BusyListener = (seconds: number, why: BusyWhy) => void;
const busyListeners = new Set<BusyListener>();
export function onBusy(listener: BusyListener): () => void {
  busyListeners.add(listener);
  return () => busyListeners.delete(listener);
}
const tellBusy = (seconds: number, why: BusyWhy) => busyListeners.forEach((listener) => listener(seconds, why));

/** How often a read refused for the rate limit, or finding the gateway away, waits and asks again before it gives up. */
const RATE_LIMIT_RETRIES = 3;
const MAX_WAIT_S = 60;
const secondsToWait = (res: Response) => Math.min(MAX_WAIT_S, Math.max(1, Number(res.headers.get('retry-after')) || 1));
/** How long a read waits when the gateway is away without saying for how long: it restarts, or is being upgraded. */
const AWAY_WAIT_S = 3;
/** What a proxy before the gateway (nginx, Caddy, a load balancer) answers for it while it is away. */
const PROXY_AWAY = new Set([502, 503, 504]);

export async function call<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<ApiResult<T>> {
  for (let attempt = 0; ; attempt++) {
    const result = await callOnce<T>(method, path, body, extraHeaders);
    // Another tab signed this browser in again since this page read its token: refused before anything was done,
    // the change is sent once more with the new session's token.
    if (result.code === 'CSRF_TOKEN_INVALID' && attempt === 0) {
      const renewed = await renewCsrfToken();
      if (renewed === true) continue;
      if (renewed) return { ...result, error: renewed };
    }
    // A read is asked again once the limit allows it, or the gateway's store is back; a change is not (the user
    // chooses to try it again).
    if (result.waitS === 0 || method !== 'GET' || attempt === RATE_LIMIT_RETRIES) return result;
    const why = result.status === 429 ? 'rate' : 'away';
    tellBusy(result.waitS, why);
    await new Promise((resolve) => setTimeout(resolve, result.waitS * 1000));
    tellBusy(0, why);
  }
}

async function callOnce<T>(
  method: string,
  path: string,
  body: unknown,
  extraHeaders: Record<string, string>,
): Promise<ApiResult<T> & { waitS: number }> {
  const headers: Record<string, string> = { ...extraHeaders, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  // Reads carry it too: once someone else signed this browser in, they are refused rather than answered as them.
  if (csrfToken && (method !== 'GET' || path !== SESSION_PATH)) headers['x-csrf-token'] = csrfToken;
  // A page's first read, of its session, says at once that the gateway is away, and offers to try again.
  const awayWaitS = path === SESSION_PATH ? 0 : AWAY_WAIT_S;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    // Nothing answered: the gateway restarts (or the connection dropped); a read waits a moment and asks again.
    return { ok: false, status: 0, waitS: awayWaitS, error: UNREACHABLE };
  }
  // The session ended (signed out elsewhere, expired, password reset): signing in again is the only way on.
  if (res.status === 401 && path !== SESSION_PATH) {
    sessionEnded();
    return { ok: false, status: 401, waitS: 0, error: SESSION_ENDED };
  }
  const text = await res.text();
  let data: any;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (res.ok) {
    if (path !== SESSION_PATH) sessionBack();
    return { ok: true, status: res.status, waitS: 0, data };
  }
  if (res.status === 429) {
    const waitS = secondsToWait(res);
    // A sign-in's refusal says why, in words for the person signing in (too many failures, too many sign-ins from
    // the address, too many passwords being checked at once): shown as it is.
    const said = path === SESSION_PATH && typeof data?.error?.message === 'string' ? data.error.message : undefined;
    return {
      ok: false,
      status: 429,
      waitS,
      error: said ?? `Many requests at once: the gateway asks to wait ${waitS} s. Try again then.`,
    };
  }
  // A proxy's own page, not the API's error: the gateway behind it is away (restarting), for how long it cannot say.
  const proxyPage = PROXY_AWAY.has(res.status) && data?.error === undefined;
  const error =
    typeof data?.error === 'string'
      ? data.error
      : (data?.error?.message ?? (proxyPage ? UNREACHABLE : `The gateway answered ${res.status}.`));
  // The gateway's own 503 (its store unavailable) says how long: worth waiting for when it is soon, not when it asks
  // for minutes (a damaged store waits for its operator).
  const retryAfter = Number(res.headers.get('retry-after'));
  const waitS =
    res.status === 503 && retryAfter > 0 ? (retryAfter <= MAX_WAIT_S ? retryAfter : 0) : proxyPage ? awayWaitS : 0;
  const problems = Array.isArray(data?.error?.fields) ? (data.error.fields as FieldProblem[]) : undefined;
  const code = typeof data?.error?.code === 'string' ? (data.error.code as string) : undefined;
  const contactId = typeof data?.error?.contactId === 'string' ? (data.error.contactId as string) : undefined;
  return { ok: false, status: res.status, waitS, error, problems, code, contactId };
}

/**
 * Reads the browser's current session for its CSRF token: true when it is this page's member's, the words to show
 * when another member signed in meanwhile (nothing is sent as them), false when there is none.
 */
async function renewCsrfToken(): Promise<boolean | string> {
  const res = await callOnce<{ csrfToken: string; member: { id: string } }>('GET', SESSION_PATH, undefined, {});
  if (!res.ok || !res.data) return false;
  if (res.data.member.id !== memberId)
    return 'Someone else signed in in another tab of this browser: reload the page to go on as them.';
  setCsrfToken(res.data.csrfToken, memberId);
  return true;
}

/** GET a JSON resource; the same result shape as `call`. */
export const get = <T,>(path: string) => call<T>('GET', path);
