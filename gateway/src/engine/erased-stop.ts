import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import { answersOnly, type BuiltInChannel } from '../api-contract.js';
import { contactOfExternalId } from '../domain/contact-identity.js';
import { updateContact } from '../domain/contact-writes.js';
import { findByPhone } from '../domain/contacts.js';
import { channelKeyOf } from '../domain/conversations.js';
import { keepOptOut } from '../domain/erased-opt-outs.js';
import { holdOptOut } from '../domain/opt-out-hold.js';
import { normalizePhone } from '../domain/phone.js';
import { now } from '../ids.js';
import { classify, normalize } from './keywords.js';

/**
 * A message dropped because its sender was erased after the gateway took it (domain/erasures.ts) is not stored, but
 * a STOP in it is obeyed: an opt-out is never lost. It is kept as an erasure keeps one, a keyed hash of the sender's
 * phone or ID with when and how it was said (domain/erased-opt-outs.ts), so the person stored again later (by
 * `POST /contacts`, an import, a message) is opted out from the start; a contact made with that address since the
 * erasure is opted out as on a STOP. Nothing else of the message is kept, and no confirmation goes: the person it
 * was said to is erased.
 */
export async function keepErasedStop(
  gw: Gateway,
  account: Account,
  message: { channel: BuiltInChannel; from: string; body: string; messageType?: 'text' | 'reaction' },
): Promise<void> {
  // Every language is read, as for any STOP: the campaign the message would have gone to is gone with the contact. A
  // reaction says nothing, as it says nothing to a contact that is not erased.
  if (message.messageType === 'reaction' || classify(message.body) !== 'opt_out') return;
  const meta = answersOnly(message.channel);
  const from = meta ? message.from : normalizePhone(message.from, 'phone', account.defaultCountry);
  await gw.store.transact(async (tx) => {
    const optOut = { at: now(), channel: channelKeyOf(message.channel, null), keyword: normalize(message.body) };
    const address = { accountId: account.id, phone: meta ? null : from, email: null, fromId: meta ? from : null };
    await keepOptOut(tx, address, optOut);
    const holder = meta ? await contactOfExternalId(tx, account.id, from) : await findByPhone(tx, account.id, from);
    if (holder && !holder.optOut) {
      await updateContact(tx, holder, { optOut, updatedAt: optOut.at });
      await holdOptOut(tx, holder.id);
    }
  });
}
