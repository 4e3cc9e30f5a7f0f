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
}

export const SESSION_PATH = '/console/api/session';

let csrfToken = '';
export const setCsrfToken = (token: string): void => {
  csrfToken = token;
};

/** Leaves for the sign-in page, coming back here afterwards. */
export function toSignIn(): void {
  location.assign(`${SIGN_IN_PATH}?next=${encodeURIComponent(location.pathname)}`);
}

export async function call<T = unknown>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { ...extraHeaders, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
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
    return { ok: false, status: 0, error: 'The gateway cannot be reached. Check the connection and try again.' };
  }
  // The session ended (signed out elsewhere, expired, password reset): signing in again is the only way on.
  if (res.status === 401 && path !== SESSION_PATH) toSignIn();
  const text = await res.text();
  let data: any;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (res.ok) return { ok: true, status: res.status, data };
  const error = typeof data?.error === 'string' ? data.error : (data?.error?.message ?? `The gateway answered ${res.status}.`);
  const problems = Array.isArray(data?.error?.fields) ? (data.error.fields as FieldProblem[]) : undefined;
  return { ok: false, status: res.status, error, problems };
}

/** GET a JSON resource; the same result shape as `call`. */
export const get = <T,>(path: string) => call<T>('GET', path);
