/**
 * Stored documents are shared with every reader, so they are frozen: a stray mutation throws instead of changing
 * data behind the journal's back. Frozen sub-objects were frozen before and are skipped.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || ArrayBuffer.isView(value)) return value;
  Object.freeze(value);
  // for...in rather than Object.values: documents are plain data, and no array is made for each object frozen.
  for (const key in value) deepFreeze(value[key]);
  return value;
}
