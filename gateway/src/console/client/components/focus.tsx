import { useLayoutEffect, useRef } from 'preact/hooks';

/**
 * For a control that goes once it has done its work (Retry, once the message is sent again): the browser drops the
 * focus to the page's body with it, and Tab would start again from the top. Pressed (`pressed()` in its handler),
 * then gone (`present` false), it leaves the focus to `box`, the part of the page around it, which a screen reader
 * then reads as it now is. A change nobody here pressed for moves no focus.
 */
export function useFocusKept<T extends HTMLElement>(present: boolean) {
  const box = useRef<T>(null);
  const wasPressed = useRef(false);
  useLayoutEffect(() => {
    if (present) return;
    if (wasPressed.current && document.activeElement === document.body) box.current?.focus();
    wasPressed.current = false;
  }, [present]);
  return { box, pressed: () => void (wasPressed.current = true) };
}
