import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Button } from './button.js';

/**
 * A select whose choice a button applies, for a choice that acts (a conversation assigned, which tells its member; a
 * member's role). Gone through with the arrow keys, a select changes at each key: had it acted at once, it would
 * have acted on every option passed on the way. The button shows once the choice differs from what holds; applied,
 * the focus goes back to the select, the button going.
 */
export function AppliedChoice(props: {
  value: string;
  /** The select's id, for a <label for>, or its name for a screen reader where no label is seen. */
  id?: string;
  label?: string;
  /** The button's text for the choice, and its name for a screen reader when the text alone is not enough. */
  apply: string;
  applyName?: string;
  busy: boolean;
  onApply: (value: string) => Promise<boolean>;
  children: ComponentChildren;
}) {
  const [chosen, setChosen] = useState(props.value);
  useEffect(() => setChosen(props.value), [props.value]);
  const select = useRef<HTMLSelectElement>(null);
  const apply = async () => {
    if (await props.onApply(chosen)) select.current?.focus();
  };
  return (
    <>
      <select
        id={props.id}
        ref={select}
        aria-label={props.label}
        value={chosen}
        onChange={(e) => setChosen(e.currentTarget.value)}
      >
        {props.children}
      </select>
      {chosen !== props.value && (
        <Button
          type="button"
          class="secondary"
          unavailable={props.busy}
          aria-label={props.applyName}
          onClick={() => void apply()}
        >
          {props.apply}
        </Button>
      )}
    </>
  );
}
