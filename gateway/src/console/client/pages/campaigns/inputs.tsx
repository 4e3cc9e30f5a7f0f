import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { Counter, counterId, describedBy } from '../../components/counter.js';

/**
 * The campaign form's controls, each bound to one value of the draft: a label always, a hint read out with the
 * field when there is one, and with the API's limit (`max`) a count of the characters used. Its long texts are
 * components/long-text's.
 */
const hintId = (id: string, hint?: ComponentChildren) => (hint ? `${id}-hint` : undefined);

const Hint = (props: { id: string; hint?: ComponentChildren }) =>
  props.hint ? (
    <p class="hint" id={`${props.id}-hint`}>
      {props.hint}
    </p>
  ) : null;

export function Text(props: {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  hint?: ComponentChildren;
  required?: boolean;
  placeholder?: string;
  type?: 'text' | 'time';
  max?: number;
}) {
  const counted = props.max !== undefined;
  const describe = describedBy(hintId(props.id, props.hint), counted && counterId(props.id));
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <Hint id={props.id} hint={props.hint} />
      {props.type === 'time' ? (
        <input
          id={props.id}
          type="time"
          value={props.value}
          required={props.required}
          aria-describedby={describe}
          onInput={(e) => props.onChange(e.currentTarget.value)}
        />
      ) : (
        <input
          id={props.id}
          type="text"
          value={props.value}
          required={props.required}
          placeholder={props.placeholder}
          aria-describedby={describe}
          aria-invalid={(counted && props.value.length > props.max!) || undefined}
          onInput={(e) => props.onChange(e.currentTarget.value)}
        />
      )}
      {counted && <Counter id={props.id} label={props.label} length={props.value.length} max={props.max!} />}
    </div>
  );
}

/** A dropdown; a `note`, when given, says under it what the choice made means, and is read out with it too. */
export function Choice<T extends string>(props: {
  id: string;
  label: string;
  value: T;
  options: Array<[T, string]>;
  onChange: (v: T) => void;
  hint?: ComponentChildren;
  note?: ComponentChildren;
}) {
  const noteId = props.note ? `${props.id}-note` : undefined;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <Hint id={props.id} hint={props.hint} />
      <select
        id={props.id}
        value={props.value}
        aria-describedby={describedBy(hintId(props.id, props.hint), noteId)}
        onChange={(e) => props.onChange(e.currentTarget.value as T)}
      >
        {props.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      {props.note && (
        <p class="hint choice-note" id={noteId}>
          {props.note}
        </p>
      )}
    </div>
  );
}

export function Check(props: {
  id: string;
  label: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  hint?: ComponentChildren;
}) {
  return (
    <div class="field">
      <label class="choice" for={props.id}>
        <input
          id={props.id}
          type="checkbox"
          checked={props.checked}
          aria-describedby={hintId(props.id, props.hint)}
          onChange={(e) => props.onChange(e.currentTarget.checked)}
        />
        {props.label}
      </label>
      <Hint id={props.id} hint={props.hint} />
    </div>
  );
}

/**
 * Rows of one or more fields (template parameters, follow-up steps, FAQs, resources) with Add and Remove. A new
 * row's first field takes focus; after a removal, focus goes to the Add button so the keyboard user is not lost.
 */
export function Rows<T>(props: {
  id: string;
  legend: string;
  /** What one row is called, for its group and its Remove button: "FAQ 2". */
  noun: string;
  rows: T[];
  max: number;
  blank: () => T;
  onChange: (rows: T[]) => void;
  hint?: ComponentChildren;
  children: (row: T, set: (row: T) => void, n: number, id: string) => ComponentChildren;
}) {
  const box = useRef<HTMLFieldSetElement>(null);
  const focus = useRef<'last' | 'add' | null>(null);
  useLayoutEffect(() => {
    if (focus.current === 'last')
      box.current?.querySelector<HTMLElement>('.row:last-of-type input, .row:last-of-type textarea')?.focus();
    if (focus.current === 'add') box.current?.querySelector<HTMLElement>('.add-row')?.focus();
    focus.current = null;
  }, [props.rows.length]);
  // "Add step", "Remove step 2"; an acronym keeps its capitals ("Add FAQ").
  const noun = /^[A-Z]+$/.test(props.noun) ? props.noun : props.noun.toLowerCase();
  const set = (i: number) => (row: T) => props.onChange(props.rows.map((r, j) => (j === i ? row : r)));
  const remove = (i: number) => {
    focus.current = 'add';
    props.onChange(props.rows.filter((_, j) => j !== i));
  };
  const add = () => {
    focus.current = 'last';
    props.onChange([...props.rows, props.blank()]);
  };
  return (
    <fieldset ref={box} id={props.id} aria-describedby={hintId(props.id, props.hint)}>
      <legend>{props.legend}</legend>
      <Hint id={props.id} hint={props.hint} />
      {props.rows.length === 0 && <p class="hint">None yet.</p>}
      {props.rows.map((row, i) => (
        <div class="row" key={i} role="group" aria-label={`${props.noun} ${i + 1}`}>
          {props.children(row, set(i), i + 1, `${props.id}-${i + 1}`)}
          <button type="button" class="danger" onClick={() => remove(i)}>
            Remove {noun} {i + 1}
          </button>
        </div>
      ))}
      <button type="button" class="secondary add-row" disabled={props.rows.length >= props.max} onClick={add}>
        Add {noun}
      </button>
      {props.rows.length >= props.max && <p class="hint">At most {props.max}.</p>}
    </fieldset>
  );
}
