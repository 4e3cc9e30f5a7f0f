import type { CollectionSpec } from '../store/store.js';

/**
 * Every collection of the gateway and its indexes. Lookups of tenant data are keyed by account first, so
 * tenants never meet; every uniqueness rule of the service is a unique index here, enforced by the backend.
 */
export const collections: CollectionSpec[] = [
  {
    name: 'accounts',
    indexes: {
      email: { unique: true, fields: ['email'] },
      apiKeyHash: { unique: true, fields: ['apiKeyHash'] },
      parentId: { fields: ['parentId'] },
    },
  },
  {
    name: 'contacts',
    indexes: {
      phone: { unique: true, fields: ['accountId', 'phone'] },
      email: { fields: ['accountId', 'email'] },
      fromId: { unique: true, fields: ['accountId', 'fromId'] },
      // Set only on contacts known by their email alone: one such contact per email.
      emailOnly: { unique: true, fields: ['accountId', 'emailOnly'] },
    },
  },
  // Every external ID a contact holds, whatever its custom channel's label: one ID is one contact of the account.
  // Found by contact too: a merged contact holds its duplicate's ID on a label it had its own on, which it does not
  // show, and its next merge or its erasure must find that one as well.
  {
    name: 'external_ids',
    indexes: { value: { unique: true, fields: ['accountId', 'externalId'] }, contact: { fields: ['contactId'] } },
  },
  // What a contact is found by (domain/contact-search.ts): one document per contact and search key.
  { name: 'contact_search', indexes: { key: { fields: ['accountId', 'key'] } } },
  { name: 'lists', indexes: { account: { fields: ['accountId'] } } },
  {
    name: 'memberships',
    indexes: {
      member: { unique: true, fields: ['listId', 'contactId'] },
      list: { fields: ['listId'] },
      // A contact's lists: what its export shows, its merge moves and its erasure removes.
      contact: { fields: ['contactId'] },
    },
  },
  { name: 'campaigns', indexes: { account: { fields: ['accountId'] } } },
  {
    name: 'messages',
    indexes: {
      messageSid: { unique: true, fields: ['accountId', 'messageSid'] },
      contact: { fields: ['contactId'] },
      // Status callbacks name a message by the id its channel provider gave it.
      providerMessageId: { unique: true, fields: ['accountId', 'providerMessageId'] },
    },
  },
  // The team's notes on a conversation (domain/notes.ts): read by conversation, oldest first; found by contact for its
  // export, its erasure and its merge.
  {
    name: 'notes',
    indexes: { conversation: { fields: ['conversationId'] }, contact: { fields: ['contactId'] } },
  },
  // The team's saved replies (domain/saved-replies.ts): read whole by account, sorted by name there; one name per
  // account, case aside.
  {
    name: 'saved_replies',
    indexes: { account: { fields: ['accountId'] }, name: { unique: true, fields: ['accountId', 'nameKey'] } },
  },
  // The account's audit log (domain/audit-log.ts): who changed what, read newest first, by action, by who, or both.
  {
    name: 'audit_log',
    indexes: {
      account: { fields: ['accountId'] },
      action: { fields: ['accountId', 'action'] },
      actor: { fields: ['accountId', 'actorId'] },
      actionActor: { fields: ['accountId', 'action', 'actorId'] },
    },
  },
  {
    name: 'conversations',
    indexes: {
      // One conversation per contact and channel ('sms', 'whatsapp' or 'custom:<label>').
      channel: { unique: true, fields: ['accountId', 'contactId', 'channelKey'] },
      contact: { fields: ['contactId'] },
      account: { fields: ['accountId'] },
      status: { fields: ['accountId', 'status'] },
      campaign: { fields: ['accountId', 'campaignId'] },
      kind: { fields: ['accountId', 'channel'] },
      // Set to 'held' only while a paused campaign holds the conversation's next follow-up.
      heldFollowUp: { fields: ['campaignId', 'followUpHeld'] },
      // Set to 'failed' only while the conversation holds a failed outgoing message.
      failing: { fields: ['accountId', 'failing'] },
      // Set to 'reply' only while the conversation needs a reply (see needsReply).
      awaiting: { fields: ['accountId', 'awaiting'] },
      assignee: { fields: ['accountId', 'assigneeId'] },
      // Set to 'snoozed' only while the conversation is snoozed (snoozedUntil).
      snoozed: { fields: ['accountId', 'snoozed'] },
      // Set to 'labelled' only while the conversation carries a label.
      labelled: { fields: ['accountId', 'labelled'] },
    },
  },
  {
    name: 'openings',
    indexes: {
      // A campaign's opening message goes to a contact at most once, whatever process schedules it.
      member: { unique: true, fields: ['campaignId', 'contactId'] },
      contact: { fields: ['contactId'] },
      // Set to 'held' only while a paused campaign holds the opening message.
      held: { fields: ['campaignId', 'held'] },
    },
  },
  { name: 'pacing', indexes: {} },
  { name: 'media', indexes: {} },
  // Found by message, and by contact: an event about a contact (a hand-off) may name no message. And the pending
  // replies of a conversation to a receiver by their turn, set only while pending (domain/reply-turns.ts), and the
  // pending deliveries of a receiver by its target, set only while pending too (engine/unsubscribe.ts).
  {
    name: 'deliveries',
    indexes: {
      message: { fields: ['messageId'] },
      contact: { fields: ['contactId'] },
      turn: { fields: ['turn'] },
      pending: { fields: ['pendingTarget'] },
    },
  },
  { name: 'webhooks', indexes: { account: { fields: ['accountId'] } } },
  // An account's credit history, whole or of one stored kind, an agency's grants to its sub-accounts, and each of
  // those by UTC day for a range of dates (domain/credit-history.ts).
  {
    name: 'transactions',
    indexes: {
      account: { fields: ['accountId'] },
      kind: { fields: ['accountId', 'kind'] },
      accountDay: { fields: ['accountId', 'day'] },
      kindDay: { fields: ['accountId', 'kind', 'day'] },
      grantedBy: { fields: ['grantedBy'] },
      grantedByDay: { fields: ['grantedBy', 'day'] },
    },
  },
  {
    name: 'idempotency',
    indexes: { key: { unique: true, fields: ['accountId', 'key'] }, contact: { fields: ['contactId'] } },
  },
  { name: 'imports', indexes: { list: { fields: ['listId'] } } },
  // The rows of an import still to be applied, a chunk per document: each is removed in the commit that applies it.
  { name: 'import_chunks', indexes: { position: { unique: true, fields: ['importId', 'position'] } } },
  // Web console sign-ins: found by the digest of the cookie's token, ended all at once when a password is reset,
  // and those of one member ended when the member is removed.
  {
    name: 'sessions',
    indexes: {
      tokenHash: { unique: true, fields: ['tokenHash'] },
      account: { fields: ['accountId'] },
      member: { fields: ['memberId'] },
    },
  },
  // An account's team (domain/members.ts): one email once per account; found at sign-in by email in every account,
  // and by the digest of an open invitation's token.
  {
    name: 'members',
    indexes: {
      account: { fields: ['accountId'] },
      email: { unique: true, fields: ['accountId', 'email'] },
      login: { fields: ['email'] },
      inviteToken: { unique: true, fields: ['inviteTokenHash'] },
    },
  },
  // Whose turn the next round-robin hand-off of an account is: one document per account, its id the account's.
  { name: 'assignment_turns', indexes: {} },
  // A campaign's funnel (domain/funnel.ts): each step once per contact, its id made of campaign, step and contact;
  // and the per-day counts the report reads, found by campaign and month.
  { name: 'funnel_steps', indexes: {} },
  { name: 'funnel_counts', indexes: { month: { fields: ['campaignId', 'month'] } } },
  // The contacts a campaign could not reach (domain/reach.ts): once per campaign, reason and contact, and the counts.
  // Read by campaign, all reasons or one, in the order they were found (domain/reach.ts).
  {
    name: 'unreachable',
    indexes: { campaign: { fields: ['campaignId'] }, reason: { fields: ['campaignId', 'reason'] } },
  },
  { name: 'unreachable_counts', indexes: {} },
  // A campaign's opening messages that are failed now (domain/failed-openings.ts), its id the message's.
  { name: 'failed_openings', indexes: { campaign: { fields: ['campaignId'] } } },
  // What a campaign's bot handed off for want of an answer (domain/unanswered.ts), read newest first.
  { name: 'unanswered', indexes: { campaign: { fields: ['campaignId'] } } },
  // A contact's provider messages still to be processed, in order (domain/inbound-turns.ts): one document per
  // contact and provider while any wait, its id made of account, provider and sender.
  { name: 'inbound_turns', indexes: {} },
  // The opt-outs of erased contacts (domain/erased-opt-outs.ts): a keyed hash of each address, its id, and the key.
  { name: 'erased_opt_outs', indexes: {} },
  // When a contact was erased (domain/erasures.ts), under a keyed hash of each address: the provider's entries taken
  // before then are dropped.
  { name: 'erasures', indexes: {} },
  // The operator's deletions of accounts (domain/account-deletion.ts), its id the deleted account's: where the removal
  // of its data is, and what it removed.
  { name: 'account_deletions', indexes: {} },
];
