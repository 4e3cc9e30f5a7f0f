import type { INodeParameters } from 'n8n-workflow';

import {
  createAccount,
  request,
  startGateway,
  untilIdle,
  type TestAccount,
  type TestGateway,
} from '../helpers/gateway';
import { byId, CREDENTIAL, createHost, runLeadChat, type Host } from './helpers/n8n';

/**
 * Contact › Update, Merge, Export, Delete, Get Many, Get by ID, and custom fields and external IDs, run as workflows
 * against the gateway.
 */
describe('LeadChat node: a contact corrected, searched, merged, exported and erased', () => {
  let gw: TestGateway;
  let account: TestAccount;
  let host: Host;

  const api = (method: string, path: string, body?: unknown) =>
    request(gw, method, `/v1${path}`, { apiKey: account.apiKey, body });

  beforeAll(async () => {
    gw = await startGateway();
    account = await createAccount(gw);
    host = await createHost({ [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } });
  });
  afterAll(async () => {
    await gw.stop();
  });

  describe('custom fields and external IDs', () => {
    test('Contact › Create sets them; the API keeps them', async () => {
      const run = await runLeadChat(host, {
        resource: 'contact',
        operation: 'create',
        phone: '+14155550301',
        email: '',
        additionalFields: {
          firstName: 'Noah',
          customFields: {
            field: [
              { name: 'plan', value: 'Gold' },
              { name: 'clinic', value: 'North' },
            ],
          },
          externalIds: { id: [{ channel: 'livechat', value: 'visitor-301' }] },
        },
      });
      expect(run.error).toBeUndefined();
      const contact = run.output('LeadChat')[0]!.json;
      expect(contact).toMatchObject({
        created: true,
        customFields: { plan: 'Gold', clinic: 'North' },
        externalIds: { livechat: 'visitor-301' },
      });
      expect((await api('GET', `/contacts/${contact.id}`)).body).toMatchObject({
        customFields: { plan: 'Gold', clinic: 'North' },
      });
    });

    test('a contact may be created from an external ID alone', async () => {
      const run = await runLeadChat(host, {
        resource: 'contact',
        operation: 'create',
        phone: '',
        email: '',
        additionalFields: { externalIds: { id: [{ channel: 'crm', value: 'crm-77' }] } },
      });
      expect(run.output('LeadChat')[0]!.json).toMatchObject({
        created: true,
        externalIds: { crm: 'crm-77' },
        phone: '',
      });
    });

    test('Lead › Capture sets them on a new lead, and merges the custom fields into one it finds', async () => {
      const list = (await api('POST', '/lists', { name: 'Capture fields' })).body;
      const capture = (fields: INodeParameters) =>
        runLeadChat(host, {
          resource: 'lead',
          operation: 'capture',
          phone: '+14155550302',
          firstName: 'Ada',
          list: byId(list.id),
          additionalFields: fields,
        });
      const first = await capture({
        customFields: { field: [{ name: 'source', value: 'form' }] },
        externalIds: { id: [{ channel: 'webchat', value: 'v-302' }] },
      });
      expect(first.output('LeadChat')[0]!.json).toMatchObject({
        created: true,
        customFields: { source: 'form' },
        externalIds: { webchat: 'v-302' },
      });
      const again = await capture({ customFields: { field: [{ name: 'coupon', value: 'SPRING' }] } });
      const found = again.output('LeadChat')[0]!.json;
      expect(found).toMatchObject({ created: false, customFields: { source: 'form', coupon: 'SPRING' } });
      expect((await api('GET', `/contacts/${found.id}`)).body.customFields).toEqual({
        source: 'form',
        coupon: 'SPRING',
      });
    });

    test('a custom field without a name fails the item before any request', async () => {
      const run = await runLeadChat(host, {
        resource: 'contact',
        operation: 'create',
        phone: '+14155550303',
        email: '',
        additionalFields: { customFields: { field: [{ name: ' ', value: 'x' }] } },
      });
      expect(run.error?.message).toBe('A custom field without a name');
    });
  });

  describe('Contact › Update', () => {
    test('a patient imported without a phone is given one; names change, custom fields merge and one is removed', async () => {
      const noah = (
        await api('POST', '/contacts', {
          email: 'noah.lee@example.com',
          firstName: 'Noah',
          customFields: { plan: 'Basic', old: 'x' },
        })
      ).body;
      const run = await runLeadChat(host, {
        resource: 'contact',
        operation: 'update',
        contactId: byId(noah.id),
        updateFields: {
          phone: '+1 (415) 555-0310',
          lastName: 'Lee',
          customFields: { field: [{ name: 'plan', value: 'Gold' }] },
          removeCustomFields: 'old',
        },
      });
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat')[0]!.json).toMatchObject({
        id: noah.id,
        phone: '+14155550310',
        lastName: 'Lee',
        firstName: 'Noah',
        email: 'noah.lee@example.com',
      });
      const stored = (await api('GET', `/contacts/${noah.id}`)).body;
      expect(stored).toMatchObject({ phone: '+14155550310', lastName: 'Lee' });
      expect(stored.customFields).toEqual({ plan: 'Gold' });
      // Dedup follows the new phone: a lookup by it finds him.
      expect((await api('GET', '/contacts?phoneNumber=%2B14155550310')).body.id).toBe(noah.id);
    });

    test('a phone and a name mapped as numbers are read as their digits', async () => {
      await api('PUT', '/settings', { defaultCountry: 'US' });
      try {
        const zoe = (await api('POST', '/contacts', { email: 'zoe.numbers@example.com' })).body;
        const run = await runLeadChat(
          host,
          {
            resource: 'contact',
            operation: 'update',
            contactId: byId(zoe.id),
            updateFields: { phone: '={{ $json.phone }}', lastName: '={{ $json.unit }}' },
          },
          [{ json: { phone: 4155550311, unit: 3 } }],
        );
        expect(run.error).toBeUndefined();
        expect(run.output('LeadChat')[0]!.json).toMatchObject({ id: zoe.id, phone: '+14155550311', lastName: '3' });
      } finally {
        await api('PUT', '/settings', { defaultCountry: null });
      }
    });

    test('External IDs: one set, one removed; an ID both given and removed fails the item', async () => {
      const contact = (await api('POST', '/contacts', { phone: '+14155550313', externalIds: { crm: 'crm-313' } })).body;
      const run = await runLeadChat(host, {
        resource: 'contact',
        operation: 'update',
        contactId: byId(contact.id),
        updateFields: {
          externalIds: { id: [{ channel: 'livechat', value: 'visitor-313' }] },
          removeExternalIds: 'crm',
        },
      });
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat')[0]!.json).toMatchObject({
        id: contact.id,
        externalIds: { livechat: 'visitor-313' },
      });
      expect((await api('GET', `/contacts/${contact.id}`)).body.externalIds).toEqual({ livechat: 'visitor-313' });
      const both = await runLeadChat(host, {
        resource: 'contact',
        operation: 'update',
        contactId: byId(contact.id),
        updateFields: {
          externalIds: { id: [{ channel: 'livechat', value: 'visitor-314' }] },
          removeExternalIds: 'livechat',
        },
      });
      expect(both.error?.message).toBe('The external ID of "livechat" is both given and removed');
    });

    test('Clear Fields empties a field; nothing to update fails the item', async () => {
      const contact = (
        await api('POST', '/contacts', { phone: '+14155550311', email: 'clear@example.com', lastName: 'Gone' })
      ).body;
      const run = await runLeadChat(host, {
        resource: 'contact',
        operation: 'update',
        contactId: byId(contact.id),
        updateFields: { clear: ['lastName', 'email'] },
      });
      expect(run.output('LeadChat')[0]!.json).toMatchObject({ lastName: '', email: '', phone: '+14155550311' });
      const nothing = await runLeadChat(host, {
        resource: 'contact',
        operation: 'update',
        contactId: byId(contact.id),
        updateFields: {},
      });
      expect(nothing.error?.message).toBe('Nothing to update');
    });

    test("another contact's phone is 409 CONTACT_EXISTS, with the API's message and the code's own hint", async () => {
      const taken = (await api('POST', '/contacts', { phone: '+14155550312' })).body;
      const other = (await api('POST', '/contacts', { email: 'other@example.com' })).body;
      const run = await runLeadChat(host, {
        resource: 'contact',
        operation: 'update',
        contactId: byId(other.id),
        updateFields: { phone: '+14155550312' },
      });
      expect(run.error?.httpCode).toBe('409');
      expect(run.error?.description).toMatch(
        /^HTTP 409 CONTACT_EXISTS from PATCH \/contacts\/ct_\w+\. Another contact already has this phone or email/,
      );
      expect(run.error?.description).not.toMatch(/Idempotency/);
      expect((await api('GET', `/contacts/${taken.id}`)).body.phone).toBe('+14155550312');
    });
  });

  describe('Contact › Get Many and Get', () => {
    test('Search finds by name, email start, phone digits or external ID; Return All walks the pages, Limit stops', async () => {
      // More than one page of Return All (100).
      const made: string[] = [];
      for (let start = 0; start < 105; start += 15) {
        const batch = Array.from({ length: Math.min(15, 105 - start) }, (_, k) => start + k);
        const created = await Promise.all(
          batch.map((n) =>
            api('POST', '/contacts', {
              phone: `+1415556${String(n).padStart(4, '0')}`,
              firstName: 'Zelda',
              lastName: `Many${n}`,
            }),
          ),
        );
        made.push(...created.map((res) => res.body.id as string));
      }
      const all = await runLeadChat(host, {
        resource: 'contact',
        operation: 'getAll',
        query: 'zelda',
        returnAll: true,
      });
      expect(all.error).toBeUndefined();
      const ids = all.output('LeadChat').map((item) => item.json.id);
      expect(ids.sort()).toEqual([...made].sort());
      const limited = await runLeadChat(host, {
        resource: 'contact',
        operation: 'getAll',
        query: 'Zelda',
        returnAll: false,
        limit: 3,
      });
      expect(limited.output('LeadChat')).toHaveLength(3);
      const byDigits = await runLeadChat(host, {
        resource: 'contact',
        operation: 'getAll',
        query: '6-0042',
        returnAll: true,
      });
      expect(byDigits.output('LeadChat').map((item) => item.json.lastName)).toEqual(['Many42']);
      const byExternalId = await runLeadChat(host, {
        resource: 'contact',
        operation: 'getAll',
        query: 'crm-77',
        returnAll: true,
      });
      expect(byExternalId.output('LeadChat').map((item) => item.json.externalIds)).toEqual([{ crm: 'crm-77' }]);
      const empty = await runLeadChat(host, { resource: 'contact', operation: 'getAll', query: '  ', returnAll: true });
      expect(empty.error?.message).toBe('Search is empty');
    });

    test('Get by ID reads the contact; Simplify keeps the keys a workflow or an agent needs', async () => {
      const contact = (
        await api('POST', '/contacts', {
          phone: '+14155550320',
          email: 'simple@example.com',
          firstName: 'Sam',
          lastName: 'Ple',
          customFields: { plan: 'Gold' },
        })
      ).body;
      const full = await runLeadChat(host, {
        resource: 'contact',
        operation: 'get',
        searchBy: 'id',
        contactId: byId(contact.id),
      });
      expect(full.output('LeadChat')[0]!.json).toEqual(contact);
      const simple = await runLeadChat(host, {
        resource: 'contact',
        operation: 'get',
        searchBy: 'id',
        contactId: byId(contact.id),
        simplify: true,
      });
      expect(simple.output('LeadChat')[0]!.json).toEqual({
        id: contact.id,
        name: 'Sam Ple',
        phone: '+14155550320',
        email: 'simple@example.com',
        customFields: { plan: 'Gold' },
        externalIds: {},
        optedOut: false,
        createdAt: contact.createdAt,
      });
      const missing = await runLeadChat(host, {
        resource: 'contact',
        operation: 'get',
        searchBy: 'id',
        contactId: byId('ct_nobody'),
        errorIfNotFound: false,
      });
      expect(missing.output('LeadChat')).toEqual([]);
    });
  });

  describe('Contact › Merge', () => {
    test("the duplicate's conversations, lists and external IDs move to the contact kept; the duplicate is gone", async () => {
      const keep = (await api('POST', '/contacts', { phone: '+14155550340', firstName: 'Noah' })).body;
      const duplicate = (
        await api('POST', '/contacts', {
          email: 'noah.lee@example.com',
          lastName: 'Lee',
          externalIds: { livechat: 'visitor-340' },
        })
      ).body;
      const list = (await api('POST', '/lists', { name: 'Merged' })).body;
      expect((await api('POST', `/lists/${list.id}/contacts`, { contactId: duplicate.id })).status).toBe(201);
      const merge = (contactId: string, duplicateId: string) =>
        runLeadChat(host, {
          resource: 'contact',
          operation: 'merge',
          contactId: byId(contactId),
          duplicateId: byId(duplicateId),
        });
      const run = await merge(keep.id, duplicate.id);
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat')[0]!.json).toMatchObject({
        id: keep.id,
        firstName: 'Noah',
        lastName: 'Lee',
        phone: '+14155550340',
        email: 'noah.lee@example.com',
        externalIds: { livechat: 'visitor-340' },
      });
      expect((await api('GET', `/contacts/${duplicate.id}`)).status).toBe(404);
      const members = (await api('GET', `/lists/${list.id}/contacts`)).body.data as Array<{ id: string }>;
      expect(members.map((m) => m.id)).toEqual([keep.id]);

      const again = await merge(keep.id, duplicate.id);
      expect(again.error?.httpCode).toBe('404');
      expect(again.error?.description).toMatch(/a merged duplicate is gone/);
      const itself = await merge(keep.id, keep.id);
      expect(itself.error?.httpCode).toBe('400');
      expect(itself.error?.description).toMatch(/SAME_CONTACT .*Pick two different contacts/);
    });
  });

  describe('Contact › Export', () => {
    test('one item holds everything about the contact: it, its conversations, messages, lists and consent', async () => {
      const phone = '+14155550350';
      const contact = (await api('POST', '/contacts', { phone, firstName: 'Ida' })).body;
      const list = (await api('POST', '/lists', { name: 'Exported' })).body;
      expect((await api('POST', `/lists/${list.id}/contacts`, { contactId: contact.id })).status).toBe(201);
      for (const body of ['When do you open?', 'STOP'])
        expect((await api('POST', '/channels/sms/incoming', { phone, body })).status).toBeLessThan(300);
      // The STOP confirmation sent: the two exports below read the same contact.
      await untilIdle(gw);
      const run = await runLeadChat(host, { resource: 'contact', operation: 'export', contactId: byId(contact.id) });
      expect(run.error).toBeUndefined();
      const items = run.output('LeadChat');
      expect(items).toHaveLength(1);
      const held = items[0]!.json as Record<string, any>;
      expect(held).toEqual({
        ...(await api('GET', `/contacts/${contact.id}/export`)).body,
        exportedAt: held.exportedAt,
      });
      expect(held.contact).toMatchObject({ id: contact.id, phone });
      expect(held.lists).toEqual([expect.objectContaining({ id: list.id, name: 'Exported' })]);
      expect(held.messages.map((m: { body: string }) => m.body)).toEqual(
        expect.arrayContaining(['When do you open?', 'STOP']),
      );
      expect(held.consent).toEqual([expect.objectContaining({ change: 'opt_out', keyword: 'stop' })]);
    });
  });

  describe('Contact › Delete', () => {
    test('erases the contact: it is gone, and the output says which', async () => {
      const contact = (await api('POST', '/contacts', { phone: '+14155550330', firstName: 'Erase' })).body;
      const run = await runLeadChat(host, { resource: 'contact', operation: 'delete', contactId: byId(contact.id) });
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat')[0]!.json).toEqual({ deleted: true, contactId: contact.id });
      expect((await api('GET', `/contacts/${contact.id}`)).status).toBe(404);
      const again = await runLeadChat(host, { resource: 'contact', operation: 'delete', contactId: byId(contact.id) });
      expect(again.error?.httpCode).toBe('404');
      expect(again.error?.description).toMatch(/an erased contact is gone/);
    });
  });
});
