import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

/**
 * Which item of a page is open (a campaign, a list), kept in the address as `?id=`: a reload or a shared link
 * opens the same one, and Back returns to the table. The page itself stays one entry of pages.ts.
 */
const read = () => new URLSearchParams(location.search).get('id');

export function useSelected() {
  const [selected, setSelected] = useState<string | null>(read);
  const first = useRef(true);
  useEffect(() => {
    const listener = () => setSelected(read());
    addEventListener('popstate', listener);
    return () => removeEventListener('popstate', listener);
  }, []);
  // As on a move between pages, the new view's heading takes focus, so a screen reader says where the user is.
  useLayoutEffect(() => {
    if (first.current) first.current = false;
    else document.querySelector<HTMLElement>('main h1')?.focus();
  }, [selected]);
  const select = (id: string | null, opts: { replace?: boolean } = {}) => {
    const to = id ? `${location.pathname}?id=${encodeURIComponent(id)}` : location.pathname;
    if (opts.replace) history.replaceState(null, '', to);
    else history.pushState(null, '', to);
    setSelected(id);
  };
  return { selected, select };
}

/** A link to one item of the page: a real address (new tab works), opened in place on a plain click. */
export function ItemLink(props: { id: string; select: (id: string) => void; children: ComponentChildren }) {
  const onClick = (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    props.select(props.id);
  };
  return (
    <a href={`${location.pathname}?id=${encodeURIComponent(props.id)}`} onClick={onClick}>
      {props.children}
    </a>
  );
}
