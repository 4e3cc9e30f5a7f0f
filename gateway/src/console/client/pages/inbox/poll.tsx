import { useEffect, useRef } from 'preact/hooks';

/** How often the inbox looks for news: a reply shows within seconds, without a reload. */
export const POLL_MS = 3_000;

/**
 * Runs `task` now and then every `ms` while the tab is visible (and at once when it becomes visible again), never
 * two at a time: a slow answer is not overtaken by the next poll.
 */
export function usePolling(task: () => Promise<unknown>, deps: unknown[], ms = POLL_MS): void {
  const latest = useRef(task);
  latest.current = task;
  useEffect(() => {
    let running = false;
    let stopped = false;
    const tick = async () => {
      if (running || stopped || document.visibilityState === 'hidden') return;
      running = true;
      try {
        await latest.current();
      } finally {
        running = false;
      }
    };
    void tick();
    const timer = setInterval(() => void tick(), ms);
    const onVisible = () => void tick();
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      stopped = true;
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, deps);
}
