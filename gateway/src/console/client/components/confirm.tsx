import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Button } from './button.js';

/** What a confirmation asks and does: the words around its second button, and what that button does. */
interface Question {
  /** What the first button and the confirmation are called for a screen reader, when the label alone is not enough ("Remove" in a table's row: "Remove Ana"). */
  name?: string;
  confirmLabel: string;
  warning: ComponentChildren;
  busy?: boolean;
  danger?: boolean;
  /** What the person types before the second button acts, and the label of its field; case and spaces aside. */
  typed?: { label: string; value: string };
  onConfirm: () => unknown;
}

/**
 * An action that cannot be undone (a new key, a rotated secret, removed credentials) takes two steps: the first
 * button says what will happen, the second does it. Focus moves to the second so a keyboard user goes straight on,
 * and back to the first once the question is answered.
 */
export function ConfirmAction(props: Question & { label: string }) {
  const [asking, setAsking] = useState(false);
  // Cancelled or done, the question goes: the focus goes back to the first button, not to the top of the page.
  const firstRef = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  useLayoutEffect(() => {
    if (!asking && asked.current) firstRef.current?.focus();
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
  return <ConfirmQuestion {...props} name={props.name ?? props.label} onClose={() => setAsking(false)} />;
}

/**
 * The second step of a ConfirmAction, where its caller puts it: a table's row asks in a row of its own beneath, the
 * width of the table. It takes the focus when it shows, and `onClose` (cancelled or done) gives it back. One that
 * loses a whole account's data (`typed`) asks for a word of it to be typed first, its email: the focus goes to that
 * field, and the second button does nothing until it holds the word, so that no slip of the hand or of the Enter key
 * deletes the wrong one.
 */
export function ConfirmQuestion(props: Question & { name: string; onClose: () => void }) {
  const [typed, setTyped] = useState('');
  const confirmRef = useRef<HTMLButtonElement>(null);
  const typedRef = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => {
    (typedRef.current ?? confirmRef.current)?.focus();
  }, []);
  const matches = !props.typed || typed.trim().toLowerCase() === props.typed.value.trim().toLowerCase();
  const confirm = async () => {
    if (!matches) return;
    await props.onConfirm();
    props.onClose();
  };
  const fieldId = props.typed && `confirm-${props.typed.value.replace(/[^\w-]/g, '-')}`;
  return (
    <div class="confirm" role="group" aria-label={props.name}>
      <p>{props.warning}</p>
      {props.typed && (
        <div class="field">
          <label for={fieldId}>{props.typed.label}</label>
          <input
            id={fieldId}
            ref={typedRef}
            type="text"
            autoComplete="off"
            spellcheck={false}
            value={typed}
            onInput={(e) => setTyped(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') void confirm();
            }}
          />
        </div>
      )}
      <Button
        type="button"
        buttonRef={confirmRef}
        class={props.danger ? 'danger' : 'primary'}
        unavailable={props.busy || !matches}
        onClick={confirm}
      >
        {props.confirmLabel}
      </Button>
      <button type="button" class="secondary" onClick={props.onClose}>
        Cancel
      </button>
    </div>
  );
}
