import type { Gateway } from '../context.js';
import type { Contact } from './contacts.js';
import { changeStatus } from './message-status-change.js';
import { deliveriesOf, type Message } from './messages.js';
import { OPTED_OUT } from './opted-out.js';
import { endUnposted, repliesWaitingOn } from './reply-turns.js';
import { now } from '../ids.js';
import type { Tx } from '../store/store.js';

/**
 * A custom channel's reply waits for its receiver's retry, maybe for hours: a STOP the contact said meanwhile holds as
 * if it came before the reply was written, as for SMS and WhatsApp (jobs/send.ts). The gateway's own answers to STOP,
 * START and HELP go all the same. The reply's deliveries still pending end failed without being posted, each letting
 * its conversation's next reply to that receiver go (the STOP's confirmation among them), and the message is
 * `skipped`, which is no failure to tell anyone of. True when the reply of `messageId` is not to be posted.
 */
export async function withheldFromOptedOut(gw: Gateway, messageId: string): Promise<boolean> {
  const message = await gw.store.get<Message>('messages', messageId);
  if (!message || !mayBeWithheld(message)) return false;
  const contact = await gw.store.get<Contact>('contacts', message.contactId);
  if (!contact?.optOut) return false;
  return gw.store.transact((tx) => withheld(tx, messageId));
}

/**
 * An opt-out (a STOP, or one the API records: a merge, an address that stays opted out) settles at once its
 * conversations' replies still waiting for a receiver's retry or behind one, rather than when each retry comes due: a
 * STOP's confirmation, queued behind them in the conversation's turn (domain/reply-turns.ts), then goes without
 * waiting hours for them. Run in the opt-out's transaction (domain/opt-out-hold.ts), the contact opted out in it
 * already.
 */
export async function withholdWaitingReplies(tx: Tx, accountId: string, conversationId: string): Promise<void> {
  for (const messageId of await repliesWaitingOn(tx, accountId, conversationId)) await withheld(tx, messageId);
}

/** Withholds the reply of `messageId` when it is still on its way and its contact opted out; true when it did. */
async function withheld(tx: Tx, messageId: string): Promise<boolean> {
  // Deliveries of one reply settling at once take turns on their message (jobs/deliver.ts).
  const current = await tx.lock<Message>('messages', messageId);
  if (!current || !mayBeWithheld(current)) return false;
  if (!(await tx.get<Contact>('contacts', current.contactId))?.optOut) return false;
  const at = now();
  for (const d of await deliveriesOf(tx, messageId)) {
    if (d.event === 'reply' && d.status === 'pending') await endUnposted(tx, d, OPTED_OUT.message, at);
  }
  await changeStatus(tx, current, { status: 'skipped', error: OPTED_OUT.message, errorCode: OPTED_OUT.code });
  return true;
}

/** Still on its way, and not one of the gateway's own answers to STOP, START or HELP. */
const mayBeWithheld = (message: Message) => message.status === 'pending' && message.author !== 'system';
