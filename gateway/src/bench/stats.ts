/** The benchmarks' figures of a set of measurements. */

/** The nearest-rank percentile `p` (0–100) of ascending `sorted`; NaN when there is none. */
export const percentile = (sorted: ArrayLike<number>, p: number): number =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]! : NaN;

/** The median of `values` (the mean of the middle two when they are even); NaN when there is none. */
export function median(values: number[]): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
