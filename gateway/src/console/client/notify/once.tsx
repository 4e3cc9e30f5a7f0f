/**
 * One tab tells: each of the member's open tabs hears the same news, and only the first to claim a conversation
 * tells of it. A tab showing the conversation claims it as the news comes, so that no other tells of what is on
 * screen. A claim is a Web Lock held for a few seconds (the events of one change, a message that also assigns the
 * conversation, make one notification): the browser grants it to one tab at a time, at once.
 */
const CLAIMED_MS = 5_000;

/** Whether this tab is the one to tell of the conversation now; no other tab will for a few seconds. */
export function firstToTell(conversationId: string): Promise<boolean> {
  if (!navigator.locks) return Promise.resolve(true);
  return new Promise((resolve) => {
    void navigator.locks.request(`leadchat.told.${conversationId}`, { ifAvailable: true }, async (lock) => {
      resolve(lock !== null);
      if (lock) await new Promise((held) => setTimeout(held, CLAIMED_MS));
    });
  });
}
