import { useRef } from 'preact/hooks';

/**
 * The Idempotency-Key of a creation, kept until it succeeds: sent again after an answer that never arrived (the
 * connection dropped, the gateway restarted), the same thing is made once. Changed in any field, it is another
 * creation, with a key of its own; once made, the next one gets a new key too.
 */
export function useIdempotencyKey(): {
  headers: (body: unknown) => { 'Idempotency-Key': string };
  made: () => void;
} {
  const pending = useRef<{ body: string; key: string } | undefined>(undefined);
  return {
    headers: (body) => {
      const sent = JSON.stringify(body);
      if (pending.current?.body !== sent) pending.current = { body: sent, key: crypto.randomUUID() };
      return { 'Idempotency-Key': pending.current.key };
    },
    made: () => {
      pending.current = undefined;
    },
  };
}
