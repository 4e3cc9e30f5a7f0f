import v8 from 'node:v8';

const FLAG = '--heap-growing-percent';
/** The heap may grow to 1.5 times what survived the last full collection before the next one. */
const GROWING_PERCENT = 50;

/**
 * V8 lets the heap grow to as much as four times what survived its last full collection before it collects
 * again: right for short-lived programs, but the embedded store keeps its indexes in memory for the life of the
 * process, so the gateway would hold several times its live data resident. A factor of 1.5 bounds that at the
 * same ingest rate (`npm run bench` reports both). A `--heap-growing-percent` given to node itself wins.
 */
export function boundHeapGrowth(): void {
  if (process.execArgv.some((arg) => arg.startsWith(FLAG))) return;
  v8.setFlagsFromString(`${FLAG}=${GROWING_PERCENT}`);
}
