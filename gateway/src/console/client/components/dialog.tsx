import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { SessionEnded } from './session-ended.js';

/**
 * A modal dialog over the page (the browser's own <dialog>: focus kept inside, Escape closes, the page behind inert),
 * for work that belongs to what was open beneath it, such as a contact's panel over a thread or a list. It fills a
 * phone's screen and scrolls within itself. A session ending while it is open is told in it, where the member can
 * sign in again (components/session-ended): the page beneath cannot be reached.
 */
export function Dialog(props: {
  labelledBy: string;
  class?: string;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog
      ref={dialog}
      class={`dialog ${props.class ?? ''}`}
      aria-labelledby={props.labelledBy}
      onClose={props.onClose}
    >
      <button type="button" class="secondary dialog-close" onClick={() => dialog.current?.close()}>
        Close
      </button>
      <SessionEnded />
      {props.children}
    </dialog>
  );
}
