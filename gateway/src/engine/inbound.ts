import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import { answersOnly } from '../api-contract.js';
import { contactOfExternalId } from '../domain/contact-identity.js';
import type { InboundEntry, InboundJob, WebhookProvider } from '../domain/inbound-entries.js';
import { endTurn, takeEntry, turnOf } from '../domain/inbound-turns.js';
import { erasedSince, senderAddresses, TakenBeforeErasure } from '../domain/erasures.js';
import { copyProviderFile } from '../domain/media.js';
import { keepErasedStop } from './erased-stop.js';
import { ApiError } from '../errors.js';
import { now } from '../ids.js';
import type { PostedMessage } from './ports/api-channels.js';
import type { ChannelReceiver } from './ports/channel-adapter.js';
import type { Engine } from './ports/providers.js';
import { applyStatusUpdate, applyWatermark } from './message-status.js';
import { receiveOnChannel } from './receive.js';
import { recordBusinessMessage } from './business-messages.js';
import { withdrawMessage } from './unsent-messages.js';

/**
 * A verified webhook's entries, each stored as an `inbound` job in one transaction, before the provider is answered:
 * what the provider was told was taken is never lost, and nothing is read from anywhere while it waits. A contact's
 * messages take their turn (domain/inbound-turns.ts); one already waiting or in process is not taken again.
 */
export async function takeEntries(
  gw: Gateway,
  accountId: string,
  provider: WebhookProvider,
  entries: InboundEntry[],
): Promise<void> {
  if (!entries.length) return;
  await gw.store.transact(async (tx) => {
    const takenAt = now();
    for (const entry of entries) {
      const turn = entry.kind === 'message' && entry.sender ? turnOf(accountId, provider, entry.sender) : null;
      await takeEntry(tx, { accountId, provider, entry, turn, takenAt });
    }
  });
}

/**
 * Job `inbound`: what an entry tells, as the engine takes it from any channel: a contact's message (its file read and
 * kept, a new sender named from their profile where the provider has one), the statuses of messages sent, read
 * marks. Then the contact's next message takes its turn. An entry its provider's adapter cannot parse throws its 400
 * ApiError: it can never be processed. Without `keepTurn` (it failed before) the turn passes first: the contact's
 * later messages wait a little for one that failed, not for as long as it keeps failing. A message whose sender was
 * erased after the entry was taken (`takenAt`) is dropped, read or not: it was part of what was erased
 * (domain/erasures.ts); a STOP in it still opts the person out (engine/erased-stop.ts). True when a status names no
 * message of the account: the entry may have come before the provider's answer to the send.
 */
export async function processEntry(gw: Engine, job: InboundJob, keepTurn: boolean): Promise<boolean> {
  if (!keepTurn) await gw.store.transact((tx) => endTurn(tx, job));
  const account = await gw.store.get<Account>('accounts', job.accountId);
  // The account, or its channel, is gone since the webhook came: nothing is left to take it.
  const adapter = account && gw.providers.adapter(gw.config, account, job.provider);
  let unknown = false;
  try {
    if (account && adapter && (await ofErasedSender(gw, job))) await keepStopsOf(gw, account, adapter, job.entry);
    else if (account && adapter) {
      const { messages, statuses, readMarks, sent = [], unsent = [] } = adapter.parse(job.entry);
      for (const message of messages)
        await receiveFromProvider(gw, account, adapter, message, job.takenAt).catch((err: unknown) =>
          droppedIfErased(gw, account, message, err),
        );
      for (const status of statuses) if (!(await applyStatusUpdate(gw, account, status, adapter.name))) unknown = true;
      for (const mark of readMarks) await applyWatermark(gw, account, mark);
      for (const message of sent) await recordBusinessMessage(gw, account, message);
      for (const message of unsent) await withdrawMessage(gw, account, message);
    }
  } catch (err) {
    if (keepTurn && isUnprocessable(err)) await gw.store.transact((tx) => endTurn(tx, job));
    throw err;
  }
  if (keepTurn) await gw.store.transact((tx) => endTurn(tx, job));
  return unknown;
}

/** Whether the entry's sender was erased after it was taken: nothing of it is read (its file, the sender's profile). */
const ofErasedSender = (gw: Engine, job: InboundJob): Promise<boolean> | boolean =>
  job.entry.kind === 'message' &&
  job.entry.sender !== null &&
  job.takenAt !== undefined &&
  erasedSince(gw.store, job.accountId, senderAddresses(job.entry.sender), job.takenAt);

/**
 * The entry of a sender erased since it was taken is dropped unread, but for a STOP in it (engine/erased-stop.ts): its
 * text is read where the entry holds it, and nothing else. An entry of a shape the provider does not send is dropped
 * all the same: kept as a dead job, it would hold the erased person's words.
 */
async function keepStopsOf(gw: Engine, account: Account, adapter: ChannelReceiver, entry: InboundEntry): Promise<void> {
  let messages: PostedMessage[];
  try {
    ({ messages } = adapter.parse(entry));
  } catch (err) {
    if (isUnprocessable(err)) return;
    throw err;
  }
  for (const message of messages) await keepErasedStop(gw, account, message);
}

/**
 * A message whose sender was erased as it was processed is dropped, a STOP in it obeyed all the same; any other
 * failure is the entry's.
 */
async function droppedIfErased(gw: Engine, account: Account, message: PostedMessage, err: unknown): Promise<void> {
  if (!(err instanceof TakenBeforeErasure)) throw err;
  await keepErasedStop(gw, account, message);
}

/** An entry of a shape its provider does not send: its adapter's parse said so with a 400. */
export const isUnprocessable = (err: unknown): err is ApiError => err instanceof ApiError && err.status === 400;

/**
 * A contact's message on a provider's channel, from its webhook's job or from the log channel's entry: its file, if
 * any, read from the provider by the adapter and kept by the gateway (a file the adapter does not read, or cannot,
 * keeps the provider's address); a new sender on Messenger or Instagram named from Meta's profile API (the other
 * providers name them in the webhook). A message holds one file: each further file of it (an album on Messenger,
 * several photos in one MMS) is a message of its own right after it, with no text, known by the message's id and its
 * place, so a webhook delivered again stores none twice. Answers the first.
 */
export async function receiveFromProvider(
  gw: Engine,
  account: Account,
  adapter: Pick<ChannelReceiver<unknown, unknown>, 'profile' | 'readFile'>,
  message: PostedMessage,
  takenAt?: string,
): ReturnType<typeof receiveOnChannel> {
  const unknown = answersOnly(message.channel) && !(await contactOfExternalId(gw.store, account.id, message.from));
  const names = unknown ? await adapter.profile(message.from) : undefined;
  const receive = (media: PostedMessage['media'][number] | null, body: string, messageSid: string | undefined) =>
    receiveOnChannel(gw, account, message.channel, {
      from: message.from,
      body,
      messageSid,
      messageType: message.messageType,
      media,
      keepFile: media ? () => copyProviderFile(gw, account.id, () => adapter.readFile(media.url)) : undefined,
      firstName: names?.firstName ?? message.profileName,
      lastName: names?.lastName,
      sentAt: message.sentAt,
      takenAt,
    });
  const [first = null, ...more] = message.media;
  const sid = message.providerMessageId ?? undefined;
  const received = await receive(first, message.body, sid);
  for (const [i, media] of more.entries()) await receive(media, '', sid && `${sid}#file${i + 2}`);
  return received;
}
