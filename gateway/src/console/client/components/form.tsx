import type { ComponentChildren, InputHTMLAttributes } from 'preact';

/** A labelled input; a hint, when given, is read out with the field. */
export function Field(props: { id: string; label: string; hint?: ComponentChildren } & InputHTMLAttributes) {
  const { id, label, hint, ...input } = props;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && <p class="hint" id={`${id}-hint`}>{hint}</p>}
      <input id={id} name={id} aria-describedby={hint ? `${id}-hint` : undefined} {...input} />
    </div>
  );
}

/**
 * Where a form tells how its last action went: the API's error as it was given (as text, whatever it holds), or
 * a confirmation. Both are live regions, so a screen reader hears them without moving.
 */
export function FormStatus(props: { error?: string; done?: string }) {
  return (
    <>
      <p class="error" role="alert">{props.error ?? ''}</p>
      <p class="done" role="status">{props.done ?? ''}</p>
    </>
  );
}

/** A read-only value with a button that copies it: keys, secrets and webhook addresses to paste elsewhere. */
export function Copyable(props: { id: string; label: string; value: string; hint?: ComponentChildren }) {
  const copy = () => void navigator.clipboard?.writeText(props.value).catch(() => undefined);
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.hint && <p class="hint" id={`${props.id}-hint`}>{props.hint}</p>}
      <div class="copyable">
        <input id={props.id} readOnly value={props.value} aria-describedby={props.hint ? `${props.id}-hint` : undefined}
          onFocus={(e) => e.currentTarget.select()} spellcheck={false} />
        <button type="button" class="secondary" onClick={copy} aria-label={`Copy ${props.label}`}>Copy</button>
      </div>
    </div>
  );
}

/** A page's panel: a titled group of related settings. */
export function Panel(props: { title: string; id: string; children: ComponentChildren }) {
  return (
    <section class="panel" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      {props.children}
    </section>
  );
}
