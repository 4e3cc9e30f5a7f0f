import { useState } from 'preact/hooks';
import type { ApiResult } from '../api.js';
import { errorText, type FieldLabels } from './problems.js';

/**
 * One thing a form does through the API: whether it is under way, and how the last try went (the API's error,
 * or what was done), for the form's FormStatus. With the form's `labels`, the error names every problem the API
 * found by the labels on screen.
 */
export function useAction(labels?: FieldLabels) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  /** `doneMessage` may be worded from the API's answer. */
  const run = async <T,>(
    request: () => Promise<ApiResult<T>>,
    doneMessage: string | ((data: T) => string),
    then?: (data: T) => void,
  ) => {
    setBusy(true);
    setDone(undefined);
    const res = await request();
    setBusy(false);
    setError(res.ok ? undefined : errorText(res, labels));
    setDone(res.ok ? (typeof doneMessage === 'string' ? doneMessage : doneMessage(res.data as T)) : undefined);
    if (res.ok) then?.(res.data as T);
    return res.ok;
  };
  return { busy, error, done, run };
}
