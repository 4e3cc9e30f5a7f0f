import { useEffect, useRef } from 'preact/hooks';
import { coalesced } from './coalesced.js';
import { liveState, subscribe, type LiveEvent, type LiveState } from './live.js';

/** While the stream is down, how often a page reads again: a change still shows within seconds. */
export const POLL_MS = 3_000;
/** The events of one change come together: the first waits this long for the rest, and one read follows them all. */
const GATHER_MS = 50;

export interface LiveReloadOptions {
  /** Whether an event of the stream changes what `load` reads (a `reset` always does). */
  concerns: (e: LiveEvent) => boolean;
  /** Read on news even in a hidden tab (the tab's title); otherwise news waits until the tab is visible again. */
  whileHidden?: boolean;
}

/**
 * Keeps what `load` reads up to date from the stream (live.tsx): read once the stream answered (or once `deps`
 * change), then again when an event concerns it, and only then: no request while nothing changes. While the
 * stream is down, read every POLL_MS instead, while the tab is visible (and at once when it becomes visible). Never
 * two reads at a time. The returned function asks for a read, as an event would (after the page changed something).
 */
export function useLiveReload(load: () => Promise<unknown>, deps: unknown[], options: LiveReloadOptions): () => void {
  const latest = useRef({ load, options });
  latest.current = { load, options };
  const asker = useRef<(delayMs?: number) => void>(() => undefined);
  useEffect(() => {
    const reload = coalesced(() => latest.current.load(), GATHER_MS);
    asker.current = reload.ask;
    const visible = () => document.visibilityState !== 'hidden';
    let loaded = false;
    // News heard while the tab was hidden, to read once it is visible.
    let stale = false;
    let poll: ReturnType<typeof setInterval> | undefined;
    const onState = (state: LiveState) => {
      if (state === 'connecting') return;
      if (!loaded) reload.ask(0);
      loaded = true;
      clearInterval(poll);
      poll = state === 'down' ? setInterval(() => visible() && reload.ask(0), POLL_MS) : undefined;
    };
    const onNews = (e: LiveEvent) => {
      if (!loaded || (e.event !== 'reset' && !latest.current.options.concerns(e))) return;
      if (visible() || latest.current.options.whileHidden) reload.ask();
      else stale = true;
    };
    const onVisible = () => {
      if (!visible() || !(stale || liveState() === 'down')) return;
      stale = false;
      reload.ask(0);
    };
    const unsubscribe = subscribe({ news: onNews, state: onState });
    onState(liveState());
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      unsubscribe();
      clearInterval(poll);
      reload.stop();
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, deps);
  return () => asker.current(0);
}
