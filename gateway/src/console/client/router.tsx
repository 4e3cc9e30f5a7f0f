import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/**
 * Pages are real addresses (/console/settings/bot), so the server can refuse each one without a session and a
 * reload lands on the same page; moving between them inside the app only swaps what is drawn.
 */
const listeners = new Set<() => void>();
const changed = () => listeners.forEach((l) => l());
addEventListener('popstate', changed);

export function navigate(to: string): void {
  history.pushState(null, '', to);
  changed();
}

/** Calls `listener` after each move to another address (navigate, back, forward); the returned function stops. */
export function onNavigate(listener: () => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** The current path, without a trailing slash. */
export function usePath(): string {
  const read = () => location.pathname.replace(/(.)\/+$/, '$1');
  const [path, setPath] = useState(read);
  useEffect(() => {
    const listener = () => setPath(read());
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return path;
}

/** A link that moves inside the app; opening it in a new tab (modifier keys, middle button) still works. */
export function Link(props: { href: string; current?: boolean; children: ComponentChildren }) {
  const onClick = (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(props.href);
  };
  return (
    <a href={props.href} onClick={onClick} aria-current={props.current ? 'page' : undefined}>
      {props.children}
    </a>
  );
}
