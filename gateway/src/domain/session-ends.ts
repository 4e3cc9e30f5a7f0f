import type { Tx } from '../store/store.js';

/** The change a session's end publishes: whatever holds the session open (the console's event streams) lets go. */
export const SESSION_ENDED = 'session.ended';

/**
 * Ends a console session in the caller's transaction; once it commits every process hears of it (Tx.publish), so
 * that nothing the session opened outlives it. The session's id names it, never its token.
 */
export async function endSessionIn(tx: Tx, session: { id: string; accountId: string }): Promise<void> {
  await tx.remove('sessions', session.id);
  tx.publish(session.accountId, { kind: SESSION_ENDED, sessionId: session.id });
}
