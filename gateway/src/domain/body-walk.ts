/** Where in a parsed body a fault was found: the path of its place, and the key holding it when it is one. */
export interface Found<F> {
  /** `['customData', 'body']`; empty for the value itself. */
  path: string[];
  /** The key at that place that holds the fault, when the fault is a key's rather than a string value's. */
  key?: string;
  fault: F;
}

/**
 * The first string or key of a parsed body in which `faultOf` finds a fault, with its place. The walk keeps its own
 * stack, since a hostile body may nest deeper than the call stack goes; each place knows its parent's, so a deep
 * value costs a step per string, not a copy of its path per level.
 */
export function firstFault<F>(
  value: unknown,
  faultOf: (text: string, isKey: boolean) => F | undefined,
): Found<F> | undefined {
  interface Place {
    value: unknown;
    key?: string;
    parent?: Place;
  }
  const pathOf = (place: Place): string[] => {
    const keys: string[] = [];
    for (let at: Place | undefined = place; at?.key !== undefined; at = at.parent) keys.push(at.key);
    return keys.reverse();
  };
  if (typeof value === 'string') {
    const fault = faultOf(value, false);
    return fault === undefined ? undefined : { path: [], fault };
  }
  // Only objects are kept as places: a string is judged where it is met, and its path built only for a fault.
  const pending: Place[] = typeof value === 'object' && value !== null ? [{ value }] : [];
  while (pending.length) {
    const place = pending.pop()!;
    // A parsed body is plain data: its keys are all its own (an array's are its indexes), and for...in makes no
    // array of entries.
    for (const key in place.value as object) {
      const keyFault = faultOf(key, true);
      if (keyFault !== undefined) return { path: pathOf(place), key, fault: keyFault };
      const inner = (place.value as Record<string, unknown>)[key];
      if (typeof inner === 'string') {
        const fault = faultOf(inner, false);
        if (fault !== undefined) return { path: [...pathOf(place), key], fault };
      } else if (typeof inner === 'object' && inner !== null) pending.push({ value: inner, key, parent: place });
    }
  }
  return undefined;
}
