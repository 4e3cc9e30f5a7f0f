import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { RenderedSavedReply, SavedReply } from '../../answers.js';
import { normalizeSearch } from '../../../../normal-form.js';
import { get } from '../../api.js';
import { Link } from '../../router.js';
import { allPages } from '../lists/paged.js';

export const SAVED_REPLIES_PATH = '/v1/saved-replies';

/**
 * The saved replies whose name or text holds what was typed, case and accents aside, as the API's ?q= finds them
 * ("prix" finds "Prix", "cafe" finds "Café"); in the API's order (by name).
 */
const matching = (all: SavedReply[], typed: string) => {
  const q = normalizeSearch(typed);
  return q ? all.filter((s) => normalizeSearch(s.name).includes(q) || normalizeSearch(s.text).includes(q)) : all;
};

/** A saved reply's first words, as its option shows them under its name. */
const preview = (text: string) => (text.length > 90 ? `${text.slice(0, 90).trimEnd()}…` : text);

/**
 * The saved replies of the team, to put one in the reply box: a field that filters them as one types and a listbox of
 * those it finds (a combobox: the focus stays in the field, ↑ and ↓ move through the options, Enter takes one, Escape
 * closes it), or a click on one. The one taken is read filled in for the conversation's contact
 * (GET /v1/saved-replies/{id}?conversationId=) and handed to `onChosen`: the reply box shows it, to edit and send as
 * any reply. Nothing is sent from here. Read anew each time it opens, so that a colleague's new one is there.
 */
export function SavedReplyPicker(props: {
  conversationId: string;
  /** Opened by the button, or by "/" typed in the empty reply box (`typed`: the "/" Escape gives back). */
  opened: { typed: string } | undefined;
  onOpen: () => void;
  /** `back`: the focus goes back to the reply box (not when it left for elsewhere). */
  onClose: (typed: string, back: boolean) => void;
  onChosen: (reply: RenderedSavedReply) => void;
}) {
  const [all, setAll] = useState<SavedReply[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [filter, setFilter] = useState('');
  const [active, setActive] = useState(0);
  const [busy, setBusy] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const open = props.opened !== undefined;
  useLayoutEffect(() => {
    if (!open) return;
    setFilter('');
    setActive(0);
    setError(undefined);
    setAll(undefined);
    field.current?.focus();
    void allPages<SavedReply>(SAVED_REPLIES_PATH).then((res) => {
      setAll(res.items);
      setError(res.error);
    });
  }, [open]);
  const found = all ? matching(all, filter) : [];
  const at = Math.min(active, Math.max(found.length - 1, 0));
  const close = (typed = '', back = true) => props.onClose(typed, back);
  const choose = async (s: SavedReply) => {
    setBusy(true);
    const res = await get<RenderedSavedReply>(
      `${SAVED_REPLIES_PATH}/${encodeURIComponent(s.id)}?conversationId=${encodeURIComponent(props.conversationId)}`,
    );
    setBusy(false);
    if (!res.ok) return setError(res.error);
    props.onChosen(res.data!);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    const moveTo = (i: number) => {
      e.preventDefault();
      if (found.length) setActive((i + found.length) % found.length);
    };
    if (e.key === 'ArrowDown') moveTo(at + 1);
    else if (e.key === 'ArrowUp') moveTo(at - 1);
    else if (e.key === 'Home' && e.ctrlKey) moveTo(0);
    else if (e.key === 'End' && e.ctrlKey) moveTo(found.length - 1);
    else if (e.key === 'Enter') {
      // Enter takes the option, never submits the reply.
      e.preventDefault();
      if (found[at] && !busy) void choose(found[at]);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      close(props.opened?.typed ?? '');
    }
  };
  const optionId = (s: SavedReply) => `saved-reply-${s.id}`;
  const count = found.length === 1 ? '1 saved reply' : `${found.length} saved replies`;
  return (
    <div
      class="saved-replies"
      onFocusOut={(e) => {
        // Left for elsewhere on the page (Tab), it closes; a click on an option keeps the focus in the field.
        const to = e.relatedTarget as Node | null;
        if (open && to && !e.currentTarget.contains(to)) close('', false);
      }}
    >
      <button
        type="button"
        class="secondary"
        ref={button}
        aria-expanded={open}
        aria-controls={open ? 'saved-reply-picker' : undefined}
        onClick={() => (open ? close() : props.onOpen())}
      >
        Saved replies
      </button>
      {open && (
        <div class="saved-replies-popup" id="saved-reply-picker" role="group" aria-label="Saved replies">
          <label for="saved-reply-filter">Find a saved reply</label>
          <input
            id="saved-reply-filter"
            ref={field}
            type="text"
            role="combobox"
            autocomplete="off"
            aria-autocomplete="list"
            aria-expanded={true}
            aria-controls="saved-reply-options"
            aria-activedescendant={found[at] ? optionId(found[at]) : undefined}
            aria-describedby="saved-reply-count"
            value={filter}
            onInput={(e) => {
              setFilter(e.currentTarget.value);
              setActive(0);
            }}
            onKeyDown={onKeyDown}
          />
          <p class="hint" id="saved-reply-count" role="status">
            {!all
              ? error
                ? ''
                : 'Loading…'
              : all.length === 0
                ? 'Your team has no saved replies yet.'
                : found.length === 0
                  ? 'No saved reply matches.'
                  : `${count}: ↑ and ↓ to move, Enter to put one in the reply box, Escape to close.`}
          </p>
          {/* Always there for the field's aria-controls; its options only once some match. */}
          <ul
            class="saved-replies-options"
            id="saved-reply-options"
            role={found.length ? 'listbox' : undefined}
            aria-label={found.length ? 'Saved replies' : undefined}
          >
            {found.map((s, i) => (
              <li
                key={s.id}
                id={optionId(s)}
                role="option"
                aria-selected={i === at}
                class={i === at ? 'active' : undefined}
                // The focus stays in the field: the click takes the option, the field keeps its keys.
                onMouseDown={(e) => e.preventDefault()}
                onMouseMove={() => i !== at && setActive(i)}
                onClick={() => !busy && void choose(s)}
              >
                <strong>{s.name}</strong>
                <span class="saved-replies-preview">{preview(s.text)}</span>
              </li>
            ))}
          </ul>
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
          {all?.length === 0 && (
            <p class="hint">
              Save the answers your team types again and again in{' '}
              <Link href="/console/settings/saved-replies">Settings › Saved replies</Link>.
            </p>
          )}
        </div>
      )}
    </div>
  );
}
