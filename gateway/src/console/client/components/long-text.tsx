import type { ComponentChildren, Ref } from 'preact';
import { Counter, counterId, describedBy } from './counter.js';

/**
 * A labelled textarea bound to a value, with its hint read out with it and, given the API's limit (`max`), the
 * count of its characters: a campaign's texts, the HELP answer, a question for the bot, a team reply.
 */
export function LongText(props: {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  hint?: ComponentChildren;
  rows?: number;
  required?: boolean;
  max?: number;
  /** What an empty field stands for: the API's default. */
  placeholder?: string;
  /** A key pressed in it, before it types anything: the reply box opens its saved replies on "/". */
  onKeyDown?: (e: KeyboardEvent) => void;
  textareaRef?: Ref<HTMLTextAreaElement>;
}) {
  const counted = props.max !== undefined;
  const hintId = props.hint ? `${props.id}-hint` : undefined;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.hint && (
        <p class="hint" id={hintId}>
          {props.hint}
        </p>
      )}
      <textarea
        id={props.id}
        name={props.id}
        rows={props.rows ?? 3}
        value={props.value}
        required={props.required}
        placeholder={props.placeholder}
        aria-describedby={describedBy(hintId, counted && counterId(props.id))}
        aria-invalid={(counted && props.value.length > props.max!) || undefined}
        onInput={(e) => props.onChange(e.currentTarget.value)}
        onKeyDown={props.onKeyDown}
        ref={props.textareaRef}
      />
      {counted && <Counter id={props.id} label={props.label} length={props.value.length} max={props.max!} />}
    </div>
  );
}
