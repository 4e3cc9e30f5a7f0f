import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Button } from './button.js';

/**
 * An action that cannot be undone (a new key, a rotated secret, removed credentials) takes two steps: the first
 * button says what will happen, the second does it. Focus moves to the second so a keyboard user goes straight on,
 * and back to the first once the question is answered.
 */
export function ConfirmAction(props: {
  label: string;
  /** What the first button and the confirmation are called for a screen reader, when the label alone is not enough ("Remove" in a table's row: "Remove Ana"). */
  name?: string;
  confirmLabel: string;
  warning: ComponentChildren;
  busy?: boolean;
  danger?: boolean;
  onConfirm: () => unknown;
}) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  // Cancelled or done, the question goes: the focus goes back to the first button, not to the top of the page.
  const firstRef = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  useLayoutEffect(() => {
    if (asking) confirmRef.current?.focus();
    else if (asked.current) firstRef.current?.focus();
    asked.current = asking;
  }, [asking]);
  if (!asking) {
    return (
      <button
        type="button"
        ref={firstRef}
        class={props.danger ? 'danger' : 'secondary'}
        aria-label={props.name}
        onClick={() => setAsking(true)}
      >
        {props.label}
      </button>
    );
  }
  const confirm = async () => {
    await props.onConfirm();
    setAsking(false);
  };
  return (
    <div class="confirm" role="group" aria-label={props.name ?? props.label}>
      <p>{props.warning}</p>
      <Button
        type="button"
        buttonRef={confirmRef}
        class={props.danger ? 'danger' : 'primary'}
        unavailable={props.busy}
        onClick={confirm}
      >
        {props.confirmLabel}
      </Button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </div>
  );
}
