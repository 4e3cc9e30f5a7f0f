import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import { contactOfExternalId } from '../domain/contact-identity.js';
import { existingConversation, lastMessageOf, touchConversation } from '../domain/conversations.js';
import { newMessage, type Message } from '../domain/messages.js';
import type { BusinessMessage } from './ports/channel-provider.js';
import { handOff, takingOver } from './handoff.js';

/** How far back the gateway's sends still waiting for Meta's answer are looked for among the contact's messages. */
const IN_FLIGHT_REACH = 20;

/**
 * A message the business sent a contact on Messenger or Instagram, as Meta tells of it (an echo). One the gateway sent
 * is known by the id Meta answered, or, while that answer is still awaited, as a send of the same text not yet
 * answered: it is stored once. Any other was written by a person of the Page in Meta's own inbox: it is kept as the
 * team's reply, and the conversation is theirs (a `team` hand-off), so the bot does not answer over them. An echo to
 * someone who never wrote to the account is nobody's conversation here, and is left out.
 */
export async function recordBusinessMessage(gw: Gateway, account: Account, sent: BusinessMessage): Promise<void> {
  await gw.store.transact(async (tx) => {
    const [known] = await tx.find<Message>('messages', 'providerMessageId', [account.id, sent.providerMessageId]);
    if (known) return;
    const contact = await contactOfExternalId(tx, account.id, sent.to);
    const conversation = contact && (await existingConversation(tx, contact, sent.channel, null));
    if (!contact || !conversation) return;
    const recent = await tx.find<Message>('messages', 'contact', [contact.id], {
      order: 'desc',
      limit: IN_FLIGHT_REACH,
    });
    const inFlight = recent.some(
      (m) => m.direction === 'outgoing' && m.channel === sent.channel && !m.providerMessageId && m.body === sent.body,
    );
    if (inFlight) return;
    const [file] = sent.media;
    const message = await tx.insert(
      'messages',
      newMessage({
        accountId: account.id,
        contactId: contact.id,
        direction: 'outgoing',
        body: sent.body,
        status: 'sent',
        channel: sent.channel,
        toId: sent.to,
        campaignId: conversation.campaignId,
        conversationId: conversation.id,
        author: 'team',
        provider: sent.channel,
        providerMessageId: sent.providerMessageId,
        media: file ? { url: file.url, contentType: file.contentType, mediaId: null } : null,
      }),
    );
    const touched = await touchConversation(tx, conversation, { lastMessage: lastMessageOf(message) });
    if (takingOver(touched)) await handOff(tx, account, touched, 'team', null);
  });
}
