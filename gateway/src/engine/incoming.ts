import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import { answering, campaignById } from '../domain/campaigns.js';
import type { Contact } from '../domain/contacts.js';
import {
  conversationsOfContact,
  lastMessageOf,
  touchConversation,
  updateConversation,
  waitsForPerson,
  type Conversation,
} from '../domain/conversations.js';
import { handOffAnew, heldByAbsent } from '../domain/assignment.js';
import { recordReply } from '../domain/funnel.js';
import type { Message } from '../domain/messages.js';
import type { Tx } from '../store/store.js';
import { campaignForReply, scheduleBotReply } from './bot-reply.js';
import { optIn, optOut } from './consent.js';
import { emitEvent } from '../domain/emit-event.js';
import { messageAdded } from '../domain/inbox-changes.js';
import { subscriptionsOf } from '../domain/webhooks.js';
import { cancelContactFollowUps } from '../domain/follow-up-timers.js';
import { acknowledgeRequest, handOff, tellHandoff } from './handoff.js';
import { intentOf } from './keywords.js';
import { openingsOf, stopOpenings } from '../domain/openings.js';
import { sendOnConversation } from './outgoing.js';
import { wokenByContact } from './snooze-ends.js';
import { helpTextOf } from '../domain/texts.js';

/**
 * A contact's message is the conversation's latest activity: it reopens a closed conversation, wakes a snoozed one
 * and counts unread.
 * A reaction is activity too, and the inbox hears of it, but it is not the conversation's last message: the bot
 * answers none, so it would leave the conversation needing a reply (needsReply reads the last message) that no one
 * owes. What needed a reply before it still does.
 *
 * `lastIncomingAt`, where the 24-hour window starts, never moves back: a message written before the contact's latest
 * (one a provider delivers again, hours later, after a newer one) leaves it at the latest.
 */
export async function recordIncoming(tx: Tx, conversation: Conversation, message: Message): Promise<Conversation> {
  const status = conversation.status === 'closed' ? 'active' : conversation.status;
  const previous = conversation.lastIncomingAt;
  const lastIncomingAt = previous && previous > message.createdAt ? previous : message.createdAt;
  const awake = await wokenByContact(tx, conversation);
  if (message.messageType === 'reaction') {
    const touched = await touchConversation(tx, conversation, { lastIncomingAt, status, ...awake });
    messageAdded(tx, touched.accountId, touched.id, message);
    return touched;
  }
  return touchConversation(tx, conversation, {
    lastMessage: lastMessageOf(message),
    lastIncomingAt,
    lastIncomingId: message.id,
    unread: (conversation.unread ?? 0) + 1,
    status,
    ...awake,
  });
}

/**
 * What onIncoming's steps read one by one, read together: the account's subscriptions, the contact's opening
 * messages and conversations. A transaction reads them again at no cost, so a caller may read them ahead, with what
 * it needs itself.
 */
export const readForIncoming = (tx: Tx, accountId: string, contactId: string) =>
  Promise.all([subscriptionsOf(tx, accountId), openingsOf(tx, contactId), conversationsOfContact(tx, contactId)]);

/**
 * A message from a contact, on any channel, in the transaction that stored it (after recordIncoming; `waited`: the
 * contact waited for a person before it). Opt-out and opt-in words come first and are always obeyed; an opted-out
 * contact gets nothing else. Otherwise the lead is talking: waiting opening messages and follow-ups stop, HELP gets
 * the account's help text, a request for a person hands off (or, while a person has it, is acknowledged), and
 * anything else is the bot's to answer while it is on; where no campaign's bot would, the conversation goes to the
 * team (a `no_campaign` hand-off) and the contact is told so: no message meets silence. A message that sets the
 * contact waiting on a member who is away is handed on.
 */
export async function onIncoming(
  tx: Tx,
  gw: Gateway,
  account: Account,
  contact: Contact,
  current: Conversation,
  message: Message,
  waited: boolean,
): Promise<void> {
  const reaction = message.messageType === 'reaction';
  await readForIncoming(tx, account.id, contact.id);
  await emitEvent(
    tx,
    account,
    'message_received',
    {
      contactId: contact.id,
      conversationId: current.id,
      messageId: message.id,
      channel: current.channel,
      customChannel: current.customChannel,
      body: message.body,
      fromId: message.fromId,
      mediaUrl: message.media?.url ?? null,
    },
    message.id,
  );
  // A reaction is the lead engaging: no "Still there?" follows it, as none follows a reply. It asks nothing: the bot
  // answers none, and nothing else happens.
  if (reaction) return void (await cancelContactFollowUps(tx, contact.id));

  const campaign = current.campaignId ? await campaignById(tx, current.campaignId) : undefined;
  const intent = intentOf(message.body, campaign);
  if (intent === 'opt_out') return optOut(tx, gw, account, contact, current, message);
  if (contact.optOut) return intent === 'opt_in' ? optIn(tx, gw, account, contact, current, message) : undefined;
  await recordReply(tx, current);

  await stopOpenings(tx, contact.id, 'wrote_first');
  const conversations = await cancelContactFollowUps(tx, contact.id);
  const latest = (await tx.get<Conversation>('conversations', current.id))!;
  if (intent === 'help') {
    await sendOnConversation(tx, gw, account, contact, latest, {
      body: helpTextOf(account),
      author: 'system',
    });
  } else if (intent === 'handoff' && latest.bot.active) {
    // Told in the words of the campaign whose bot would have answered.
    const told = await tellHandoff(
      tx,
      gw,
      account,
      contact,
      latest,
      await campaignForReply(tx, account, latest, message, conversations),
    );
    await handOff(tx, account, told, 'contact_asked', message.body);
  } else if (intent === 'handoff') {
    // A person has it already: asking again is acknowledged, not met by silence.
    await acknowledgeRequest(tx, gw, account, contact, latest, campaign);
  } else if (latest.bot.active && latest.status === 'active') {
    // No campaign's bot would answer (no campaign, no default one): the contact is told a person will, and the team is.
    if (await campaignForReply(tx, account, latest, message, conversations))
      await scheduleBotReply(tx, account, latest, message, conversations, gw.config.botDebounceMs);
    else
      await handOff(
        tx,
        account,
        await tellHandoff(tx, gw, account, contact, latest, campaign),
        'no_campaign',
        message.body,
      );
  } else if (latest.status === 'handed_off' && latest.handoff?.reason === 'no_campaign') {
    // Handed to the team only for want of a campaign, and no person has written since: one that answers now takes it.
    if (answering(await campaignForReply(tx, account, latest, message, conversations))) {
      const back = await updateConversation(tx, latest, {
        bot: { active: true, since: message.createdAt },
        status: 'active',
      });
      await scheduleBotReply(tx, account, back, message, conversations, gw.config.botDebounceMs);
    }
  }
  await handOnFromAbsent(tx, account, current.id, waited, message);
}

/**
 * The contact's message began a wait for a person in a conversation whose assignee is away: it is handed off anew
 * (to the next available in turn, else to nobody), as the member's going away hands on those waiting then, and the
 * `handoff` event tells the team what the contact wrote. A wait under way stays as it is: whoever gave it to an away
 * member meanwhile chose to.
 */
async function handOnFromAbsent(tx: Tx, account: Account, conversationId: string, waited: boolean, message: Message) {
  if (waited) return;
  const latest = await tx.get<Conversation>('conversations', conversationId);
  if (latest?.waitingSince && waitsForPerson(latest) && (await heldByAbsent(tx, account, latest)))
    await handOffAnew(tx, account, latest, message.body);
}
