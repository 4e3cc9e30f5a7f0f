import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { get } from '../api.js';

/**
 * For a page that reads again when a choice changes (a filter, a list, a search): `begin()` as a read starts gives
 * `fresh()`, true until another read begins. An answer no longer fresh is dropped, so a read answered late never
 * puts back what an earlier choice asked for.
 */
export function useLatest(): () => () => boolean {
  const reads = useRef(0);
  return () => {
    const n = ++reads.current;
    return () => n === reads.current;
  };
}

/** Reads a resource of the API for a page, and lets the page put in what a save answered. */
export function useResource<T>(path: string) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const begin = useLatest();
  const reload = useCallback(async () => {
    const fresh = begin();
    const res = await get<T>(path);
    if (!fresh()) return;
    if (res.ok) setData(res.data);
    setError(res.ok ? undefined : res.error);
  }, [path]);
  useEffect(() => void reload(), [reload]);
  return { data, error, setData, reload };
}

/** What a page shows while its data is on the way, or when it could not be read. */
export function Loading(props: { error?: string }) {
  return props.error ? (
    <p class="error" role="alert">
      {props.error}
    </p>
  ) : (
    <p role="status">Loading…</p>
  );
}
