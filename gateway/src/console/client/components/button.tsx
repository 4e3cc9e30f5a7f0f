import type { ButtonHTMLAttributes, Ref } from 'preact';

/**
 * A button unavailable while what it started is under way (a reply sending, settings saving). Disabled, it would
 * lose the keyboard's focus the moment it is pressed: the browser blurs a disabled button, and Tab then starts again
 * from the top of the page. This one keeps its focus, says it is unavailable (aria-disabled, styled as disabled)
 * and ignores presses meanwhile; a submit button so ignores the Enter of its form's fields too, which the browser
 * turns into a click on it. `buttonRef` is the button's ref (a component's own `ref` would not reach it).
 */
export function Button(props: { unavailable?: boolean; buttonRef?: Ref<HTMLButtonElement> } & ButtonHTMLAttributes) {
  const { unavailable, onClick, buttonRef, ...button } = props;
  return (
    <button
      {...button}
      ref={buttonRef}
      aria-disabled={unavailable ? 'true' : undefined}
      onClick={(e) => {
        if (unavailable) e.preventDefault();
        else onClick?.call(e.currentTarget, e);
      }}
    />
  );
}
