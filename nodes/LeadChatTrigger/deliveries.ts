/**
 * The deliveries each trigger took lately, by `webhook-id`, so that the same delivery posted again (a sender's retry
 * after an answer it did not get, or a replay of a signed request) starts no second execution. A retry is signed
 * anew, so its timestamp says nothing of the first attempt: an id is kept for REPEAT_WINDOW_SECONDS after the later of
 * its timestamp and its arrival, longer than the gateway's default retries take (their last comes about 10 h 40 min
 * after the first attempt).
 *
 * The record lives in this n8n process's memory: it holds per process (not across restarts or the several
 * processes of queue mode), and is bounded, so that a flood of deliveries cannot grow it without end.
 */
export const REPEAT_WINDOW_SECONDS = 12 * 60 * 60;
const MAX_IDS_PER_TRIGGER = 10_000;
const MAX_TRIGGERS = 100;

/** Per trigger, each id taken with the time (unix seconds) until which a repeat of it is a duplicate. */
const taken = new Map<string, Map<string, number>>();

/** Drops the ids of a trigger whose time is up; Map order is insertion order, roughly oldest first. */
function prune(ids: Map<string, number>, nowSeconds: number): void {
  for (const [id, until] of ids) {
    if (until >= nowSeconds) break;
    ids.delete(id);
  }
  while (ids.size > MAX_IDS_PER_TRIGGER) ids.delete(ids.keys().next().value as string);
}

/** The record of one trigger, made on first use; the one used least lately goes when there are too many. */
function recordOf(trigger: string): Map<string, number> {
  const ids = taken.get(trigger) ?? new Map<string, number>();
  taken.delete(trigger);
  taken.set(trigger, ids);
  while (taken.size > MAX_TRIGGERS) taken.delete(taken.keys().next().value as string);
  return ids;
}

/**
 * Takes a delivery for a trigger: true the first time its id comes within the window, false for a repeat. A
 * delivery without an id (a sender that does not name its deliveries) is always taken.
 */
export function takeDelivery(
  trigger: string,
  deliveryId: string | undefined,
  timestamp: string | undefined,
  nowSeconds: number,
): boolean {
  if (!deliveryId) return true;
  const ids = recordOf(trigger);
  prune(ids, nowSeconds);
  if (ids.has(deliveryId)) return false;
  const signedAt = timestamp && /^\d+$/.test(timestamp) ? Number(timestamp) : nowSeconds;
  ids.set(deliveryId, Math.max(signedAt, nowSeconds) + REPEAT_WINDOW_SECONDS);
  return true;
}
