import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { useRef, useState } from 'preact/hooks';

/** A labelled input; a hint, when given, is read out with the field. */
export function Field(props: { id: string; label: string; hint?: ComponentChildren } & InputHTMLAttributes) {
  const { id, label, hint, ...input } = props;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
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
      <p class="error" role="alert">
        {props.error ?? ''}
      </p>
      <p class="done" role="status">
        {props.done ?? ''}
      </p>
    </>
  );
}

/**
 * A read-only value with a button that copies it: keys, secrets, webhook addresses and invitation links to paste
 * elsewhere. The value is always in view, so it can be copied by hand where the browser refuses the clipboard (a
 * page over plain HTTP, a browser that asks first): then the text is selected and the button says how.
 */
export function Copyable(props: { id: string; label: string; value: string; hint?: ComponentChildren }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<boolean | undefined>(undefined);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied(true);
    } catch {
      input.current?.select();
      setCopied(false);
    }
  };
  const describedBy = [props.hint && `${props.id}-hint`, `${props.id}-copied`].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.hint && (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      )}
      <div class="copyable">
        <input
          id={props.id}
          ref={input}
          readOnly
          value={props.value}
          aria-describedby={describedBy}
          onFocus={(e) => e.currentTarget.select()}
          spellcheck={false}
        />
        <button type="button" class="secondary" onClick={() => void copy()} aria-label={`Copy ${props.label}`}>
          Copy
        </button>
      </div>
      <p class={copied === false ? 'hint copy-refused' : 'done'} id={`${props.id}-copied`} role="status">
        {copied === undefined
          ? ''
          : copied
            ? 'Copied.'
            : 'The browser did not allow copying: the text is selected in the box, copy it with Ctrl+C (⌘C on a Mac).'}
      </p>
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
