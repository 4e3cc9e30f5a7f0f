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
  { name: 'lists', indexes: { account: { fields: ['accountId'] } } },
  {
    name: 'memberships',
    indexes: {
      member: { unique: true, fields: ['listId', 'contactId'] },
      list: { fields: ['listId'] },
    },
  },
  { name: 'campaigns', indexes: { account: { fields: ['accountId'] } } },
  {
    name: 'messages',
    indexes: {
      messageSid: { unique: true, fields: ['accountId', 'messageSid'] },
      contact: { fields: ['contactId'] },
    },
  },
  { name: 'media', indexes: {} },
  { name: 'deliveries', indexes: { message: { fields: ['messageId'] } } },
  { name: 'webhooks', indexes: { account: { fields: ['accountId'] } } },
  { name: 'transactions', indexes: { account: { fields: ['accountId'] } } },
  { name: 'idempotency', indexes: { key: { unique: true, fields: ['accountId', 'key'] } } },
];
