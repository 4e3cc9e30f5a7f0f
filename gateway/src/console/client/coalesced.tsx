/** A task run on demand: see coalesced. */
export interface Coalesced {
  /** Runs the task after `delayMs`, or once more after the run under way; asks meanwhile add nothing. */
  ask: (delayMs?: number) => void;
  /** Nothing runs any more. */
  stop: () => void;
}

/**
 * Runs `task` when asked, never two at a time: the asks of a burst (a change told as several events) make one run,
 * and those made while it runs make one more after it, which reads what they announced.
 */
export function coalesced(task: () => Promise<unknown>, gatherMs: number): Coalesced {
  let running = false;
  let again = false;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = async () => {
    timer = undefined;
    if (stopped) return;
    running = true;
    again = false;
    try {
      await task();
    } finally {
      running = false;
      if (again) ask();
    }
  };
  const ask = (delayMs = gatherMs) => {
    if (stopped) return;
    if (running) again = true;
    else if (timer === undefined) timer = setTimeout(() => void run(), delayMs);
  };
  return {
    ask,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
