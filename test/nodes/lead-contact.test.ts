import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { createAccount, request, startGateway, type TestAccount, type TestGateway } from '../helpers/gateway';
import { createHost, runLeadChat, type Host } from './helpers/n8n';

/** Lead > Capture and Contact > Create / Get / Get or Create, run as workflows against the gateway. */
describe('LeadChat node: leads and contacts', () => {
  let gw: TestGateway;
  let account: TestAccount;
  let host: Host;
  let listId: string;

  beforeAll(async () => {
    gw = await startGateway();
    account = await createAccount(gw);
    host = await createHost({ leadChatApi: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } });
    listId = (await request(gw, 'POST', '/v1/lists', { apiKey: account.apiKey, body: { name: 'Spring funnel' } })).body
      .id;
  });
  afterAll(async () => {
    await gw.stop();
  });

  const members = async () =>
    (await request(gw, 'GET', `/v1/lists/${listId}/contacts`, { apiKey: account.apiKey })).body.data as Array<{
      id: string;
    }>;

  describe('Lead > Capture', () => {
    const capture = (extra: Record<string, unknown> = {}) => ({
      resource: 'lead',
      operation: 'capture',
      phone: '={{ $json.phone }}',
      firstName: '={{ $json.name }}',
      list: { __rl: true, mode: 'id', value: listId },
      additionalFields: { email: '={{ $json.email }}', lastName: 'Lead' },
      ...extra,
    });

    test('a new lead is normalized, created and added to the list; a repeat finds it and changes nothing', async () => {
      const first = await runLeadChat(host, capture(), [
        { json: { phone: '0044 20 7946 0958', name: 'Maya', email: 'maya@example.com' } },
      ]);
      expect(first.error).toBeUndefined();
      const [item] = first.output('LeadChat');
      expect(item!.json).toMatchObject({
        id: expect.stringMatching(/\S/),
        firstName: 'Maya',
        lastName: 'Lead',
        phone: '+442079460958',
        email: 'maya@example.com',
        created: true,
        addedToList: true,
        listId,
      });
      expect(item!.pairedItem).toEqual({ item: 0 });
      expect((await members()).map((m) => m.id)).toContain(item!.json.id);

      const again = await runLeadChat(host, capture(), [
        { json: { phone: '+44 20 7946 0958', name: 'Maya', email: '' } },
      ]);
      expect(again.output('LeadChat')[0]!.json).toMatchObject({
        id: item!.json.id,
        created: false,
        addedToList: false,
      });
    });

    test("a phone written with a word processor's dashes or a minus sign is read as its number, as the API reads it", async () => {
      // A no-break hyphen (Word), an en dash (Numbers, Pages) and a minus sign between the digits.
      const run = await runLeadChat(host, capture(), [
        { json: { phone: '+33 6\u201112\u201134\u201156\u201178', name: 'Chloé', email: 'chloe.dash@example.com' } },
        { json: { phone: '+1 415\u2013555\u20130170', name: 'Ava', email: 'ava.dash@example.com' } },
        { json: { phone: '+44 20 7946 \u22120171', name: 'Ian', email: 'ian.dash@example.com' } },
      ]);
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat').map((i) => i.json.phone)).toEqual([
        '+33612345678',
        '+14155550170',
        '+442079460171',
      ]);
      const found = await runLeadChat(host, {
        resource: 'contact',
        operation: 'get',
        phone: '+1 415\u2013555\u20130170',
      });
      expect(found.error).toBeUndefined();
      expect(found.output('LeadChat')[0]!.json).toMatchObject({ phone: '+14155550170', firstName: 'Ava' });
    });

    test('a lead whose email is known but phone is new is found by email, not duplicated', async () => {
      const existing = await request(gw, 'POST', '/v1/contacts', {
        apiKey: account.apiKey,
        body: { email: 'known@example.com', firstName: 'Known' },
      });
      const run = await runLeadChat(host, capture(), [
        { json: { phone: '+1 415 555 0142', name: 'Known', email: 'known@example.com' } },
      ]);
      expect(run.output('LeadChat')[0]!.json).toMatchObject({
        id: existing.body.id,
        created: false,
        addedToList: true,
      });
    });

    test('an email-only contact found by the email takes the phone and the names it lacks, and the opening goes', async () => {
      const api = (method: string, path: string, body?: unknown) =>
        request(gw, method, `/v1${path}`, { apiKey: account.apiKey, body });
      const smsList = (await api('POST', '/lists', { name: 'SMS leads' })).body;
      const campaign = await api('POST', '/campaigns', {
        name: 'SMS spring',
        channel: 'sms',
        listId: smsList.id,
        openingMessage: 'Hi {{first_name|there}}!',
        triggerOnNewContacts: true,
        status: 'live',
      });
      expect(campaign.status).toBe(201);
      const existing = (await api('POST', '/contacts', { email: 'lena@example.com' })).body;
      const run = await runLeadChat(host, capture({ list: { __rl: true, mode: 'id', value: smsList.id } }), [
        { json: { phone: '+1 415 555 0177', name: 'Lena', email: 'lena@example.com' } },
      ]);
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat')[0]!.json).toMatchObject({
        id: existing.id,
        phone: '+14155550177',
        firstName: 'Lena',
        lastName: 'Lead',
        email: 'lena@example.com',
        created: false,
        addedToList: true,
      });
      expect((await api('GET', `/contacts/${existing.id}`)).body.phone).toBe('+14155550177');
      expect((await api('GET', `/campaigns/${campaign.body.id}`)).body.unreachable.total).toBe(0);
    });

    test('a contact found by its phone takes the names it lacks, for the opening message; names it has stay', async () => {
      const api = (method: string, path: string, body?: unknown) =>
        request(gw, method, `/v1${path}`, { apiKey: account.apiKey, body });
      // Imported with phones only, or written in by text before the form was filled in.
      const nameless = (await api('POST', '/contacts', { phone: '+14155550160' })).body;
      const named = (await api('POST', '/contacts', { phone: '+14155550161', firstName: 'Ruth' })).body;
      const run = await runLeadChat(host, capture(), [
        { json: { phone: '+1 415 555 0160', name: 'Maya' } },
        { json: { phone: '+1 415 555 0161', name: 'Ruthie' } },
      ]);
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat').map((item) => item.json)).toMatchObject([
        { id: nameless.id, firstName: 'Maya', lastName: 'Lead', created: false, addedToList: true },
        { id: named.id, firstName: 'Ruth', lastName: 'Lead', created: false, addedToList: true },
      ]);
      expect((await api('GET', `/contacts/${nameless.id}`)).body).toMatchObject({
        firstName: 'Maya',
        lastName: 'Lead',
      });
      expect((await api('GET', `/contacts/${named.id}`)).body).toMatchObject({ firstName: 'Ruth', lastName: 'Lead' });
    });

    test('a contact found by the email with another phone is someone else: the lead is created with its own', async () => {
      const other = await request(gw, 'POST', '/v1/contacts', {
        apiKey: account.apiKey,
        body: { phone: '+14155550188', email: 'desk@example.com', firstName: 'Front' },
      });
      const run = await runLeadChat(host, capture(), [
        { json: { phone: '+1 415 555 0189', name: 'Desk', email: 'desk@example.com' } },
      ]);
      expect(run.error).toBeUndefined();
      const [item] = run.output('LeadChat');
      expect(item!.json).toMatchObject({ phone: '+14155550189', email: 'desk@example.com', created: true });
      expect(item!.json.id).not.toBe(other.body.id);
      const kept = await request(gw, 'GET', `/v1/contacts/${other.body.id}`, { apiKey: account.apiKey });
      expect(kept.body).toMatchObject({ phone: '+14155550188', firstName: 'Front' });
    });

    test('a phone without country code, with no default country in the node or on the account, fails the item, saying how to write it, before anything is created', async () => {
      const before = (await members()).length;
      const run = await runLeadChat(host, capture(), [
        { json: { phone: '555 0100', name: 'Nope', email: 'nope@example.com' } },
      ]);
      expect(run.error?.message).toMatch(/"5550100" has no country code/);
      expect(run.error?.description).toMatch(/\+ and the country code.*default country/s);
      expect((await members()).length).toBe(before);
      const lookup = await request(gw, 'GET', '/v1/contacts', {
        apiKey: account.apiKey,
        query: { email: 'nope@example.com' },
      });
      expect(lookup.status).toBe(404);
    });

    test("a national number is read under the account's default country when the node sets none", async () => {
      const local = await createAccount(gw);
      const set = await request(gw, 'PUT', '/v1/settings', { apiKey: local.apiKey, body: { defaultCountry: 'US' } });
      expect(set.status).toBe(200);
      const localList = (await request(gw, 'POST', '/v1/lists', { apiKey: local.apiKey, body: { name: 'Desk' } })).body;
      const localHost = await createHost({
        leadChatApi: { baseUrl: gw.apiBase, apiKey: local.apiKey, ignoreSslIssues: true },
      });
      const run = await runLeadChat(localHost, capture({ list: { __rl: true, mode: 'id', value: localList.id } }), [
        { json: { phone: '(415) 555-0177', name: 'Dana', email: '' } },
        { json: { phone: '+1 415 555 0177', name: 'Dana', email: '' } },
      ]);
      expect(run.error).toBeUndefined();
      const [first, again] = run.output('LeadChat');
      expect(first!.json).toMatchObject({ phone: '+14155550177', firstName: 'Dana', created: true });
      expect(again!.json).toMatchObject({ id: first!.json.id, created: false });
    });

    test('Default Country Code completes a national number', async () => {
      const run = await runLeadChat(host, capture({ additionalFields: { defaultCountryCode: '49' } }), [
        { json: { phone: '030 1234567', name: 'Jonas' } },
      ]);
      expect(run.output('LeadChat')[0]!.json).toMatchObject({ phone: '+49301234567', created: true });
    });

    test('numbers mapped from a spreadsheet (phone, country code, names, list ID) are read as their digits', async () => {
      const run = await runLeadChat(
        host,
        capture({
          list: { __rl: true, mode: 'id', value: '={{ $json.list }}' },
          additionalFields: { defaultCountryCode: '={{ $json.country }}', lastName: '={{ $json.unit }}' },
        }),
        [{ json: { phone: 2025550177, country: 1, name: 7, unit: 12, list: listId } }],
      );
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat')[0]!.json).toMatchObject({
        phone: '+12025550177',
        firstName: '7',
        lastName: '12',
        created: true,
        addedToList: true,
      });
    });

    test('every input item gets its own output item, paired to it', async () => {
      const run = await runLeadChat(host, capture(), [
        { json: { phone: '+1 202 555 0101', name: 'A' } },
        { json: { phone: '+1 202 555 0102', name: 'B' } },
        { json: { phone: '+1 202 555 0103', name: 'C' } },
      ]);
      const items = run.output('LeadChat');
      expect(items.map((i) => [i.json.firstName, i.pairedItem])).toEqual([
        ['A', { item: 0 }],
        ['B', { item: 1 }],
        ['C', { item: 2 }],
      ]);
    });

    test('an unknown list fails with the API message and what to check', async () => {
      const run = await runLeadChat(host, capture({ list: { __rl: true, mode: 'id', value: 'lst_missing' } }), [
        { json: { phone: '+1 202 555 0199', name: 'Lost' } },
      ]);
      expect(run.error?.message).toMatch(/^LeadChat: .*not found/i);
      expect(run.error?.description).toMatch(
        /HTTP 404 LIST_NOT_FOUND from POST \/lists\/lst_missing\/contacts\. Check the List and the Contact ID\./,
      );
    });
  });

  describe('Contact', () => {
    test('Create: a new contact is 201 created; the same phone in another format returns it, not a duplicate', async () => {
      const params = {
        resource: 'contact',
        operation: 'create',
        phone: '={{ $json.phone }}',
        email: '',
        additionalFields: { firstName: 'Ravi', lastName: 'Shah' },
      };
      const first = await runLeadChat(host, params, [{ json: { phone: '+1 (212) 555-0123' } }]);
      expect(first.output('LeadChat')[0]!.json).toMatchObject({
        phone: '+12125550123',
        firstName: 'Ravi',
        lastName: 'Shah',
        created: true,
        createdAt: expect.any(String),
      });
      const second = await runLeadChat(host, params, [{ json: { phone: '001 212 555 0123' } }]);
      expect(second.output('LeadChat')[0]!.json).toMatchObject({
        id: first.output('LeadChat')[0]!.json.id,
        created: false,
      });
    });

    test('Create: neither phone nor email fails with what to give', async () => {
      const run = await runLeadChat(host, { resource: 'contact', operation: 'create', phone: '', email: '' });
      expect(run.error?.message).toBe('Give a phone or an email');
    });

    test('Create: a malformed email comes back with the API message', async () => {
      const run = await runLeadChat(host, {
        resource: 'contact',
        operation: 'create',
        phone: '',
        email: 'not-an-email',
      });
      expect(run.error?.message).toMatch(/^LeadChat: email: "not-an-email" is not an email address$/);
      expect(run.error?.description).toMatch(/HTTP 400 INVALID_EMAIL from POST \/contacts\. Check the email address\./);
    });

    test('Get: by phone (any format) and by email', async () => {
      const created = await request(gw, 'POST', '/v1/contacts', {
        apiKey: account.apiKey,
        body: { phone_number: '+61 2 9374 4000', email: 'sydney@example.com', first_name: 'Syd' },
      });
      const byPhone = await runLeadChat(host, {
        resource: 'contact',
        operation: 'get',
        searchBy: 'phone',
        phone: '0061 (2) 9374-4000',
      });
      expect(byPhone.output('LeadChat')).toEqual([
        { json: expect.objectContaining({ id: created.body.id }), pairedItem: { item: 0 } },
      ]);
      const byEmail = await runLeadChat(host, {
        resource: 'contact',
        operation: 'get',
        searchBy: 'email',
        email: 'sydney@example.com',
      });
      expect(byEmail.output('LeadChat')[0]!.json).toMatchObject({ id: created.body.id, firstName: 'Syd' });
    });

    test('Get: no match fails clearly, or outputs nothing when "Error If Not Found" is off', async () => {
      const failing = await runLeadChat(host, {
        resource: 'contact',
        operation: 'get',
        searchBy: 'email',
        email: 'ghost@example.com',
      });
      expect(failing.error?.message).toBe('LeadChat: no contact with email ghost@example.com');
      const byId = await runLeadChat(host, {
        resource: 'contact',
        operation: 'get',
        searchBy: 'id',
        contactId: { __rl: true, mode: 'id', value: 'ct_missing1' },
      });
      expect(byId.error?.message).toBe('LeadChat: no contact with ID ct_missing1');
      const quiet = await runLeadChat(host, {
        resource: 'contact',
        operation: 'get',
        searchBy: 'email',
        email: 'ghost@example.com',
        errorIfNotFound: false,
      });
      expect(quiet.error).toBeUndefined();
      expect(quiet.output('LeadChat')).toEqual([]);
    });

    test('Get: a Base URL without /v1 fails saying so, by phone, email or ID, even with Error If Not Found off; so does a 404 page of another server', async () => {
      const noVersion = await createHost({
        leadChatApi: { baseUrl: gw.url, apiKey: account.apiKey, ignoreSslIssues: true },
      });
      const lookups = [
        { searchBy: 'phone', phone: '+1 415 555 0100' },
        { searchBy: 'email', email: 'ghost@example.com' },
        { searchBy: 'id', contactId: { __rl: true, mode: 'id', value: 'ct_missing1' } },
      ];
      for (const lookup of lookups) {
        for (const errorIfNotFound of [true, false]) {
          const run = await runLeadChat(noVersion, {
            resource: 'contact',
            operation: 'get',
            ...lookup,
            errorIfNotFound,
          });
          expect(run.error?.message).toMatch(/^LeadChat: No route GET \/contacts/);
          expect(run.error?.description).toMatch(/Check that the Base URL of the credential ends with \/v1\./);
        }
      }
      const page = http.createServer((_req, res) => {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<h1>Not Found</h1>');
      });
      await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
      try {
        const other = await createHost({
          leadChatApi: { baseUrl: `http://127.0.0.1:${(page.address() as AddressInfo).port}/v1`, apiKey: 'k' },
        });
        const run = await runLeadChat(other, {
          resource: 'contact',
          operation: 'get',
          searchBy: 'email',
          email: 'ghost@example.com',
          errorIfNotFound: false,
        });
        expect(run.error?.description).toMatch(/^HTTP 404 from GET \/contacts\./);
      } finally {
        await new Promise<void>((resolve) => page.close(() => resolve()));
      }
      const capture = await runLeadChat(noVersion, {
        resource: 'contact',
        operation: 'getOrCreate',
        phone: '+1 415 555 0100',
        email: '',
      });
      expect(capture.error?.description).toMatch(/HTTP 404 NOT_FOUND from GET \/contacts\..*ends with \/v1\./);
    });

    test('Get or Create: an email-only contact found by the email takes the phone given', async () => {
      const existing = await request(gw, 'POST', '/v1/contacts', {
        apiKey: account.apiKey,
        body: { email: 'mira@example.com', firstName: 'Mira' },
      });
      const run = await runLeadChat(host, {
        resource: 'contact',
        operation: 'getOrCreate',
        phone: '+1 415 555 0166',
        email: 'mira@example.com',
        additionalFields: { firstName: 'Someone', lastName: 'Stone' },
      });
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat')[0]!.json).toMatchObject({
        id: existing.body.id,
        phone: '+14155550166',
        firstName: 'Mira',
        lastName: 'Stone',
        created: false,
      });
    });

    test('Get or Create: creates once, then finds', async () => {
      const params = {
        resource: 'contact',
        operation: 'getOrCreate',
        phone: '',
        email: 'once@example.com',
        additionalFields: { firstName: 'Once' },
      };
      const first = await runLeadChat(host, params);
      const second = await runLeadChat(host, params);
      expect(first.output('LeadChat')[0]!.json).toMatchObject({ email: 'once@example.com', created: true });
      expect(second.output('LeadChat')[0]!.json).toMatchObject({
        id: first.output('LeadChat')[0]!.json.id,
        created: false,
      });
    });
  });
});
