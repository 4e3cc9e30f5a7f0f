import { api, createAccount, uniquePhone, untilIdle, useGateway, type TestAccount } from './api-support';

/**
 * A campaign's follow-up "after 1d" across the nights the clocks change, as a marketer with a sending window in the
 * leads' zone sets it (docs/api.md, "Follow-ups"): it goes at the same local time the next day, a day of 23 or 25
 * hours, not 24 hours later by the clock.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '200ms' });

async function clockTo(iso: string) {
  await untilIdle(ctx.gw, { horizonMs: 0 });
  await ctx.gw.advance(Date.parse(iso) - ctx.gw.now());
}

/** A Live campaign with one follow-up a day after the opening, and a lead added to its list: its contact ID. */
async function leadOfCampaign(account: TestAccount, sendingWindow: Record<string, string>): Promise<string> {
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leads' } })).body;
  const created = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Clocks',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Hi {{first_name|there}}!',
      triggerOnNewContacts: true,
      status: 'live',
      sendingWindow,
      followUps: { enabled: true, steps: [{ after: '1d', body: 'Still there?' }] },
    },
  });
  expect(created.status).toBe(201);
  const contact = (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone() } })).body;
  await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: contact.id } });
  await untilIdle(ctx.gw, { horizonMs: 0 });
  return contact.id;
}

const nextOf = async (account: TestAccount, contactId: string) =>
  ((await api(ctx.gw, account, 'GET', `conversations?contactId=${contactId}`)).body.data as any[])[0].next;

const sentAt = async (account: TestAccount, contactId: string) =>
  ((await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages`)).body.data as any[])
    .filter((m) => m.direction === 'outgoing')
    .map((m) => m.createdAt as string)
    .sort();

test('Berlin springs forward: an opening at 19:30 on Saturday is followed up at 19:30 on Sunday, inside the window', async () => {
  const account = await createAccount(ctx.gw);
  await clockTo('2027-03-27T18:30:00Z'); // Saturday 19:30 CET
  const lead = await leadOfCampaign(account, { start: '08:00', end: '20:00', timezone: 'Europe/Berlin' });
  // 24 hours on is 20:30 CEST, past the window's end: it would wait for Monday 08:00.
  expect(await nextOf(account, lead)).toEqual({ kind: 'follow_up', at: '2027-03-28T17:30:00.000Z', step: 0 });
  await untilIdle(ctx.gw, { horizonMs: 24 * 3_600_000 });
  expect(await sentAt(account, lead)).toEqual(['2027-03-27T18:30:00.000Z', '2027-03-28T17:30:00.000Z']);
});

test('New York falls back: an opening at 09:00 on Saturday is followed up at 09:00 on Sunday, not 08:00', async () => {
  const account = await createAccount(ctx.gw);
  await clockTo('2027-11-06T13:00:00Z'); // Saturday 09:00 EDT
  const lead = await leadOfCampaign(account, { start: '08:00', end: '20:00', timezone: 'America/New_York' });
  expect(await nextOf(account, lead)).toEqual({ kind: 'follow_up', at: '2027-11-07T14:00:00.000Z', step: 0 });
  await untilIdle(ctx.gw, { horizonMs: 26 * 3_600_000 });
  expect(await sentAt(account, lead)).toEqual(['2027-11-06T13:00:00.000Z', '2027-11-07T14:00:00.000Z']);
});
