import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { etagOf } from '../../../api-contract.js';
import type { ApiResult } from '../api.js';
import { Button } from './button.js';

/** The header that makes a save apply only to the version a form loaded: another is refused, changing nothing. */
export const ifMatch = (version: number): Record<string, string> => ({ 'if-match': etagOf(version) });

/**
 * A form that saves what it loaded, sent with `ifMatch`: `watch` wraps its request, so that a refusal because the
 * record changed meanwhile (412 PRECONDITION_FAILED: saved from another tab or by another member) is told by
 * ChangedElsewhere, in words for the person at the form, instead of as the API's message.
 */
export function useChangedElsewhere() {
  const [changed, setChanged] = useState(false);
  const watch =
    <T,>(request: () => Promise<ApiResult<T>>) =>
    async (): Promise<ApiResult<T>> => {
      const res = await request();
      const refused = res.code === 'PRECONDITION_FAILED';
      setChanged(refused);
      return refused ? { ...res, error: undefined } : res;
    };
  return { changed, watch, done: () => setChanged(false) };
}

/**
 * Why a save was refused when the record changed since the form loaded it: what the person typed stays in the form,
 * and the button loads the record as it is now (saying what that does to what they typed). As the session-ended box,
 * an alert, so a screen reader hears it where focus is.
 */
export function ChangedElsewhere(props: {
  children: ComponentChildren;
  reload: string;
  busy?: boolean;
  onReload: () => unknown;
}) {
  return (
    <div class="warning changed-elsewhere" role="alert">
      <p>{props.children}</p>
      <Button type="button" class="secondary" unavailable={props.busy} onClick={() => void props.onReload()}>
        {props.reload}
      </Button>
    </div>
  );
}
