import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import type { Contact } from '../domain/contacts.js';
import type { Conversation } from '../domain/conversations.js';
import { recordStep } from '../domain/funnel.js';
import type { Message } from '../domain/messages.js';
import { now } from '../ids.js';
import type { Tx } from '../store/store.js';
import { emitEvent } from '../domain/emit-event.js';
import { holdOptOut, releaseOptOut } from '../domain/opt-out-hold.js';
import { normalize } from './keywords.js';
import { sendOnConversation } from './outgoing.js';
import { OPT_IN_CONFIRMATION, OPT_OUT_CONFIRMATION } from '../domain/texts.js';

/**
 * Opt-out (FCC 2025): the contact is out on every channel of the account. One confirmation goes on the channel they
 * wrote on; then nothing (opening messages, follow-ups, bot or team replies) until they opt in again. A second STOP
 * changes nothing and sends nothing.
 */
export async function optOut(
  tx: Tx,
  gw: Gateway,
  account: Account,
  contact: Contact,
  conversation: Conversation,
  message: Message,
): Promise<void> {
  if (contact.optOut) return;
  const change = { at: now(), channel: conversation.channelKey, keyword: normalize(message.body) };
  const updated = await tx.update<Contact>('contacts', contact.id, { optOut: change, updatedAt: change.at });
  // Skips there the replies waiting for a custom channel's retry, which would hold the confirmation behind them.
  await holdOptOut(tx, contact.id);
  await recordStep(tx, 'optedOut', conversation);
  const current = (await tx.get<Conversation>('conversations', conversation.id))!;
  await sendOnConversation(tx, gw, account, updated, current, { body: OPT_OUT_CONFIRMATION, author: 'system' });
  await emitEvent(
    tx,
    account,
    'opt_out',
    { contactId: contact.id, channel: conversation.channelKey, source: 'contact', body: message.body },
    message.id,
  );
}

/** START or UNSTOP after an opt-out: the contact's conversations are active again, and one confirmation says so. */
export async function optIn(
  tx: Tx,
  gw: Gateway,
  account: Account,
  contact: Contact,
  conversation: Conversation,
  message: Message,
): Promise<void> {
  const change = { at: now(), channel: conversation.channelKey, keyword: normalize(message.body) };
  const updated = await tx.update<Contact>('contacts', contact.id, {
    optOut: null,
    optIn: change,
    updatedAt: change.at,
  });
  await releaseOptOut(tx, updated);
  const current = (await tx.get<Conversation>('conversations', conversation.id))!;
  await sendOnConversation(tx, gw, account, updated, current, { body: OPT_IN_CONFIRMATION, author: 'system' });
}
