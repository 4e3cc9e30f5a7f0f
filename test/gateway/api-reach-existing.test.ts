import {
  advanceClock,
  api,
  createAccount,
  expectApiError,
  uniquePhone,
  untilIdle,
  useGateway,
  type TestAccount,
} from './api-support';

/**
 * Import first, then the campaign: `POST /v1/campaigns/{id}/reach-existing` sends the opening message to the
 * contacts already on a Live campaign's list, paced like new additions, each exactly once however often (or however
 * concurrently) it is asked, and counts those it cannot reach by reason.
 */
const ctx = useGateway({ LEADCHAT_TEST_CLOCK: '1', LEADCHAT_JOB_POLL: '100ms' });

async function listOf(account: TestAccount, people: Array<Record<string, unknown>>) {
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Imported leads' } })).body;
  const ids: string[] = [];
  for (const person of people) {
    const contact = (await api(ctx.gw, account, 'POST', 'contacts', { body: person })).body;
    expect(
      (await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: contact.id } })).status,
    ).toBe(201);
    ids.push(contact.id);
  }
  return { list, ids };
}

async function campaignOn(account: TestAccount, listId: string, fields: Record<string, unknown> = {}) {
  const created = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Spring cleaning',
      channel: 'sms',
      listId,
      openingMessage: 'Hi {{first_name|there}}, a cleaning this month?',
      triggerOnNewContacts: true,
      status: 'live',
      sendRate: '30/m',
      ...fields,
    },
  });
  expect(created.status).toBe(201);
  return created.body;
}

const openings = async (account: TestAccount, contactId: string) =>
  ((await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages`)).body.data as any[]).filter(
    (m) => m.author === 'campaign',
  );

/** Lets the paced openings go: the clock moves past every slot, then the queue runs dry. */
async function sendAllPaced(): Promise<void> {
  await advanceClock(ctx.gw, '1h');
  await untilIdle(ctx.gw);
}

test('contacts on the list before the campaign went Live get its opening once asked, paced; those it cannot reach are counted by reason', async () => {
  const account = await createAccount(ctx.gw);
  const reachable = Array.from({ length: 5 }, (_, i) => ({ phone: uniquePhone(), firstName: `Lead${i}` }));
  const { list, ids } = await listOf(account, [
    ...reachable,
    { email: `no-phone-${Date.now()}@example.com`, firstName: 'Nophone' },
  ]);
  const campaign = await campaignOn(account, list.id);
  // Going Live sends nothing to contacts already there.
  await untilIdle(ctx.gw);
  for (const id of ids) expect(await openings(account, id)).toEqual([]);

  const reached = await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/reach-existing`);
  expect(reached.status).toBe(202);
  expect(reached.body).toEqual({ queued: 5, unreachable: { no_phone: 1 } });
  // Paced like new additions: the first 3 at once, the others one per interval of 30/m.
  await untilIdle(ctx.gw, { horizonMs: 0 });
  const atOnce = (await Promise.all(ids.slice(0, 5).map((id) => openings(account, id)))).filter((m) => m.length === 1);
  expect(atOnce).toHaveLength(3);
  await sendAllPaced();
  for (const [i, id] of ids.slice(0, 5).entries()) {
    expect((await openings(account, id)).map((m) => m.body)).toEqual([`Hi Lead${i}, a cleaning this month?`]);
  }

  // Asked again: nothing more, nothing counted twice.
  expect((await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/reach-existing`)).body).toEqual({
    queued: 0,
    unreachable: {},
  });
  await sendAllPaced();
  for (const id of ids.slice(0, 5)) expect(await openings(account, id)).toHaveLength(1);

  // The campaign page and the funnel count exactly what was sent and what could not be.
  const page = (await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}`)).body;
  expect(page.unreachable).toMatchObject({ total: 1, byReason: { no_phone: 1 } });
  const funnel = (await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/funnel`)).body;
  expect(funnel.totals).toMatchObject({ added: 5, openingSent: 5 });
});

test('a list larger than a batch, asked twice at once: every contact gets exactly one opening', async () => {
  const account = await createAccount(ctx.gw);
  const people = Array.from({ length: 130 }, (_, i) => ({ phone: uniquePhone(), firstName: `Many${i}` }));
  const { list, ids } = await listOf(account, people);
  const campaign = await campaignOn(account, list.id, { sendRate: '6000/m' });
  const [one, two] = await Promise.all(
    [1, 2].map(() => api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/reach-existing`)),
  );
  expect([one.status, two.status]).toEqual([202, 202]);
  expect(one.body.queued + two.body.queued).toBe(130);
  await sendAllPaced();
  const counts = await Promise.all(ids.map(async (id) => (await openings(account, id)).length));
  expect(counts.every((n) => n === 1)).toBe(true);
});

test('a contact added after going Live is not reached twice; the ones who wrote first or opted out are not messaged', async () => {
  const account = await createAccount(ctx.gw);
  const [early, writer, leaver] = [uniquePhone(), uniquePhone(), uniquePhone()];
  const { list, ids } = await listOf(account, [{ phone: early }, { phone: writer }, { phone: leaver }]);
  expect(
    (
      await api(ctx.gw, account, 'POST', 'channels/sms/incoming', {
        body: { phone: writer, body: 'Hello, do you clean ovens?' },
      })
    ).status,
  ).toBe(200);
  expect(
    (await api(ctx.gw, account, 'POST', 'channels/sms/incoming', { body: { phone: leaver, body: 'STOP' } })).status,
  ).toBe(200);
  const campaign = await campaignOn(account, list.id);
  const late = (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone() } })).body;
  expect(
    (await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: late.id } })).status,
  ).toBe(201);
  const reached = await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/reach-existing`);
  expect(reached.body).toEqual({ queued: 1, unreachable: { wrote_first: 1, opted_out: 1 } });
  await sendAllPaced();
  expect(await openings(account, ids[0]!)).toHaveLength(1);
  expect(await openings(account, late.id)).toHaveLength(1);
  expect(await openings(account, ids[1]!)).toEqual([]);
  expect(await openings(account, ids[2]!)).toEqual([]);
});

test('a contact skipped for want of a phone is reached once it has one, and counted unreachable no more', async () => {
  const account = await createAccount(ctx.gw);
  const { list, ids } = await listOf(account, [{ email: `later-${Date.now()}@example.com`, firstName: 'Dee' }]);
  const campaign = await campaignOn(account, list.id);
  expect((await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/reach-existing`)).body).toEqual({
    queued: 0,
    unreachable: { no_phone: 1 },
  });
  // Asked again with nothing changed: counted once, as before.
  expect((await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/reach-existing`)).body).toEqual({
    queued: 0,
    unreachable: {},
  });

  expect((await api(ctx.gw, account, 'PATCH', `contacts/${ids[0]}`, { body: { phone: uniquePhone() } })).status).toBe(
    200,
  );
  expect((await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/reach-existing`)).body).toEqual({
    queued: 1,
    unreachable: {},
  });
  await sendAllPaced();
  expect((await openings(account, ids[0]!)).map((m) => m.body)).toEqual(['Hi Dee, a cleaning this month?']);
  // Reached after all: the campaign no longer names it among those it cannot reach.
  expect((await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}`)).body.unreachable).toMatchObject({
    total: 0,
    byReason: { no_phone: 0 },
  });
  expect((await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/unreachable`)).body.data).toEqual([]);
  expect((await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/reach-existing`)).body).toEqual({
    queued: 0,
    unreachable: {},
  });
  await sendAllPaced();
  expect(await openings(account, ids[0]!)).toHaveLength(1);
});

test('only a Live campaign with a list reaches anyone', async () => {
  const account = await createAccount(ctx.gw);
  const { list } = await listOf(account, [{ phone: uniquePhone() }]);
  const draft = await campaignOn(account, list.id, { status: 'draft' });
  expectApiError(await api(ctx.gw, account, 'POST', `campaigns/${draft.id}/reach-existing`), 409, 'CAMPAIGN_NOT_LIVE');
  expectApiError(await api(ctx.gw, account, 'POST', 'campaigns/cmp_missing/reach-existing'), 404, 'CAMPAIGN_NOT_FOUND');
  const other = await createAccount(ctx.gw);
  expectApiError(await api(ctx.gw, other, 'POST', `campaigns/${draft.id}/reach-existing`), 404, 'CAMPAIGN_NOT_FOUND');
});
