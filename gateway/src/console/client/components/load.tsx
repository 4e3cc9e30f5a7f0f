import { useCallback, useEffect, useState } from 'preact/hooks';
import { get } from '../api.js';

/** Reads a resource of the API for a page, and lets the page put in what a save answered. */
export function useResource<T>(path: string) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const reload = useCallback(async () => {
    const res = await get<T>(path);
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
