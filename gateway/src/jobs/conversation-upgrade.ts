import type { Account } from '../domain/accounts.js';
import { timeEarlierWait, upgradeConversation } from '../domain/conversation-upgrade.js';
import type { Conversation } from '../domain/conversations.js';
import { newJob } from '../domain/job-kinds.js';
import { failedAnswerOf } from '../engine/failed-answer.js';
import type { Store, Tx } from '../store/store.js';

/**
 * Set once every conversation stored before has the fields this release derives (domain/conversation-upgrade.ts).
 * PostgreSQL's migrations 21 and 26 do the same in the database and set it too. A new name each time a rule it
 * derives by changes (2: a team reply that failed answers nothing), so that data walked by the rules before is walked
 * again.
 */
export const CONVERSATIONS_UPGRADED = 'conversations-upgraded-2';
const PAGE = 200;

/**
 * Brings the conversations an earlier release stored up to this release's rules, at start and before the gateway
 * serves: a read right after an upgrade (the inbox's "waiting" filter) finds every conversation as this release
 * would have made it. A walk in pages, each in one transaction, done once per data dir: later starts find the mark.
 * Safe to stop halfway: the next start walks again, and what is already up to date stays as it is.
 */
export async function upgradeStoredConversations(gw: Upgrading): Promise<void> {
  await deriveFields(gw);
  await timeWaits(gw);
  await handFailedAnswers(gw);
}

interface Upgrading {
  store: Store;
  log: { info(fields: object, message: string): void };
}

async function deriveFields(gw: Upgrading): Promise<void> {
  if (await gw.store.settings.get(CONVERSATIONS_UPGRADED)) return;
  let after: string | undefined;
  let seen = 0;
  let upgraded = 0;
  for (;;) {
    const page = await gw.store.scan<Conversation>('conversations', { limit: PAGE, after });
    if (page.length > 0) {
      upgraded += await gw.store.transact(async (tx) => {
        let changed = 0;
        for (const { id } of page) {
          const conversation = await tx.get<Conversation>('conversations', id);
          if (conversation && (await upgradeConversation(tx, conversation))) changed += 1;
        }
        return changed;
      });
    }
    seen += page.length;
    if (page.length < PAGE) break;
    after = page.at(-1)!.id;
  }
  await gw.store.settings.putIfAbsent(CONVERSATIONS_UPGRADED, new Date().toISOString());
  if (upgraded > 0)
    gw.log.info({ conversations: seen, upgraded }, 'conversations stored by an earlier release brought up to date');
}

/**
 * Set once every contact an earlier release left waiting for a person has their wait timed (on both backends). 2: those
 * whose only answer since was a team reply that failed, which an earlier release took for an answer.
 */
export const WAITS_TIMED = 'handoff-waits-timed-2';

/**
 * A contact an earlier release left waiting for a person (handed off, needing a reply) has their wait timed from when
 * it began, and its reminder queued, as this release would have: a team that had not answered them for longer than
 * its reminder is reminded at once. Only the conversations needing a reply are read.
 */
async function timeWaits(gw: Upgrading): Promise<void> {
  if (await gw.store.settings.get(WAITS_TIMED)) return;
  const timed = await eachIndexed(gw, 'awaiting', 'reply', timeEarlierWait);
  await gw.store.settings.putIfAbsent(WAITS_TIMED, new Date().toISOString());
  if (timed > 0) gw.log.info({ conversations: timed }, 'contacts an earlier release left waiting for a person timed');
}

/** Set once each bot's answer an earlier release left failed, the conversation's last word, went to the team. */
export const FAILED_ANSWERS_HANDED = 'failed-answers-handed-1';

/**
 * A bot's answer that failed for good under an earlier release, still the last word of a conversation the bot has,
 * goes to the team as one failing now does (engine/failed-answer.ts): its job is queued, and runs once the gateway
 * serves. Only the conversations holding a failed message are read.
 */
async function handFailedAnswers(gw: Upgrading): Promise<void> {
  if (await gw.store.settings.get(FAILED_ANSWERS_HANDED)) return;
  const queued = await eachIndexed(gw, 'failing', 'failed', async (tx, c) => {
    const answer = failedAnswerOf(c);
    if (answer) await tx.enqueue(newJob('reply_failed', { messageId: answer }, { accountId: c.accountId }));
    return answer !== undefined;
  });
  await gw.store.settings.putIfAbsent(FAILED_ANSWERS_HANDED, new Date().toISOString());
  if (queued > 0)
    gw.log.info({ conversations: queued }, "bots' answers an earlier release left failed handed to the team");
}

/**
 * Visits, account by account, the conversations an index holds under `value`, a page to a transaction; answers how
 * many `visit` changed.
 */
async function eachIndexed(
  gw: Upgrading,
  index: 'awaiting' | 'failing',
  value: string,
  visit: (tx: Tx, conversation: Conversation) => Promise<boolean>,
): Promise<number> {
  let changed = 0;
  let afterAccount: string | undefined;
  for (;;) {
    const accounts = await gw.store.scan<Account>('accounts', { limit: PAGE, after: afterAccount });
    for (const account of accounts) {
      let after: string | undefined;
      for (;;) {
        const page = await gw.store.find<Conversation>('conversations', index, [account.id, value], {
          limit: PAGE,
          after,
        });
        changed += await gw.store.transact(async (tx) => {
          let done = 0;
          for (const { id } of page) {
            const conversation = await tx.get<Conversation>('conversations', id);
            if (conversation && (await visit(tx, conversation))) done += 1;
          }
          return done;
        });
        if (page.length < PAGE) break;
        after = page.at(-1)!.id;
      }
    }
    if (accounts.length < PAGE) break;
    afterAccount = accounts.at(-1)!.id;
  }
  return changed;
}
