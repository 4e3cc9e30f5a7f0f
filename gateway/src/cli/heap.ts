import { constants, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';

const FLAG = '--heap-growing-percent';
/** What the heap may always grow by past what survived the last full collection. */
const HEADROOM_BYTES = 40 * 1024 * 1024;
/** Bounds of the growth, as a share of what survived: a large heap grows by 30 % of it. */
const MIN_PERCENT = 30;
const MAX_PERCENT = 300;

/** The growth for this much live data, in steps of 10 % so that the flag changes seldom. */
export function growingPercent(liveBytes: number): number {
  const percent = (100 * HEADROOM_BYTES) / Math.max(liveBytes, 1);
  return Math.round(Math.min(MAX_PERCENT, Math.max(MIN_PERCENT, percent)) / 10) * 10;
}

/**
 * V8 lets the heap grow to as much as four times what survived its last full collection before it collects
 * again: right for short-lived programs, but the embedded store keeps its indexes in memory for the life of the
 * process, so the gateway would hold several times its live data resident. After each full collection the growth
 * allowed is set to 40 MB past what survived, and to 30 % of it once that is more: a small heap is not
 * collected in full every few megabytes (which costs throughput), a large one stays within 1.3 times its live
 * data, and its full collections, each proportional to what survived, stay a bounded share of the work (`npm run
 * bench` reports both). A `--heap-growing-percent` given to node itself wins.
 */
export function boundHeapGrowth(): void {
  if (process.execArgv.some((arg) => arg.startsWith(FLAG))) return;
  let current = 0;
  const adjust = () => {
    const percent = growingPercent(v8.getHeapStatistics().used_heap_size);
    if (percent !== current) v8.setFlagsFromString(`${FLAG}=${(current = percent)}`);
  };
  adjust();
  new PerformanceObserver((list) => {
    const major = (entry: object) =>
      (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
    if (list.getEntries().some(major)) adjust();
  }).observe({ type: 'gc' });
}
