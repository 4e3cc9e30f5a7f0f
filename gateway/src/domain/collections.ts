import type { CollectionSpec } from '../store/store.js';

/** Every collection of the gateway and its indexes. Index keys are scoped by account, so tenants never meet. */
const scoped = (field: string) => (d: any) => (d[field] ? `${d.accountId}|${d[field]}` : undefined);

export const collections: CollectionSpec[] = [
  {
    name: 'accounts',
    indexes: {
      email: { unique: true, key: (a) => a.email },
      apiKeyHash: { unique: true, key: (a) => a.apiKeyHash },
      parentId: { key: (a) => a.parentId },
    },
  },
  {
    name: 'contacts',
    indexes: {
      phone: { unique: true, key: scoped('phone') },
      email: { key: scoped('email') },
      fromId: { unique: true, key: scoped('fromId') },
    },
  },
  { name: 'lists', indexes: { account: { key: (l) => l.accountId } } },
  {
    name: 'memberships',
    indexes: {
      member: { unique: true, key: (m) => `${m.listId}|${m.contactId}` },
      list: { key: (m) => m.listId },
    },
  },
  { name: 'campaigns', indexes: { account: { key: (c) => c.accountId } } },
  {
    name: 'messages',
    indexes: {
      messageSid: { unique: true, key: scoped('messageSid') },
      contact: { key: (m) => m.contactId },
    },
  },
  { name: 'media', indexes: {} },
  { name: 'deliveries', indexes: { message: { key: (d) => d.messageId } } },
  { name: 'webhooks', indexes: { account: { key: (w) => w.accountId } } },
  { name: 'transactions', indexes: { account: { key: (t) => t.accountId } } },
  { name: 'idempotency', indexes: {} },
  { name: 'jobs', indexes: { status: { key: (j) => j.status } } },
];
