import type { Account } from '../domain/accounts.js';
import type { Contact } from '../domain/contacts.js';
import type { Message } from '../domain/messages.js';
import { isBuiltIn } from '../api-contract.js';
import { ChannelError } from '../engine/ports/channel-provider.js';
import { changeStatus } from '../domain/message-status-change.js';
import { OPTED_OUT } from '../domain/opted-out.js';
import type { Job, JobResult } from '../store/store.js';
import type { JobKinds } from '../domain/job-kinds.js';
import type { JobContext } from './queue.js';
import { clockNow } from '../clock.js';
import { campaignById } from '../domain/campaigns.js';
import { nextOpening } from '../domain/sending-window.js';

/**
 * Job `send`: hands an outgoing message on a built-in channel to its provider. A refusal is final; a failure
 * that may pass (the provider down, its rate limit) is tried again on the webhook retry schedule, then given up,
 * and a `delivery_failed` event tells the account.
 */
export async function sendMessageJob(gw: JobContext, job: Job<JobKinds['send']>): Promise<JobResult> {
  const message = await gw.store.get<Message>('messages', job.data.messageId);
  if (!message || message.status !== 'pending' || !isBuiltIn(message.channel)) return;
  const channel = message.channel;
  const account = await gw.store.get<Account>('accounts', message.accountId);
  if (!account) return;
  // A send waits for its turn, or for the provider to come back after a fault, maybe for hours: a STOP the contact
  // said meanwhile holds as if it came before the message was written.
  if (message.author !== 'system' && (await optedOut(gw, message))) {
    await settle(gw, message, { status: 'skipped', error: OPTED_OUT.message, errorCode: OPTED_OUT.code });
    return;
  }
  const provider = gw.providers.channel(gw.config, account, channel);
  try {
    const { providerMessageId } = await provider.send({
      messageId: message.id,
      channel,
      to: message.toId ?? '',
      body: message.body,
      template: message.template,
      humanAgent: message.messageTag === 'HUMAN_AGENT',
    });
    await settle(gw, message, { status: 'sent', provider: provider.name, providerMessageId });
  } catch (err) {
    const error = (err as Error).message;
    const retryable = !(err instanceof ChannelError) || err.retryable;
    const delays = gw.config.webhookRetryDelaysMs;
    const retriesDone = job.attempts - 1;
    if (retryable && retriesDone < delays.length) {
      gw.log.warn({ message: message.id, provider: provider.name, error }, 'channel send failed; retrying later');
      return { retryAt: await withinWindow(gw, message, clockNow() + delays[retriesDone]!) };
    }
    const code = err instanceof ChannelError ? err.code : null;
    if (code === TWILIO_UNSUBSCRIBED && (await optedOut(gw, message))) {
      await settle(gw, message, {
        status: 'skipped',
        provider: provider.name,
        error: CONFIRMED_BY_TWILIO,
        errorCode: code,
      });
      return;
    }
    await settle(gw, message, { status: 'failed', provider: provider.name, error, errorCode: code });
  }
}

/**
 * When a campaign's opening or follow-up tried again at `at` goes: at the next opening of the campaign's sending
 * window when it is shut then, so a lead is not written to at night because the provider was down in the evening.
 * Other messages (a team's reply, the bot's answer) answer the contact and go when the provider is back.
 */
async function withinWindow(gw: JobContext, message: Message, at: number): Promise<number> {
  if ((message.author !== 'campaign' && message.author !== 'follow_up') || !message.campaignId) return at;
  const window = (await campaignById(gw.store, message.campaignId))?.sendingWindow;
  return window ? nextOpening(window, at) : at;
}

/**
 * Twilio's answer for a number that texted STOP to it: by default it confirms the STOP itself and blocks the number.
 * The gateway's own confirmation to that contact is then no failure to report: the contact was told.
 */
const TWILIO_UNSUBSCRIBED = '21610';
const CONFIRMED_BY_TWILIO =
  'Twilio answered the STOP itself (its Advanced Opt-Out) and takes no message for the number until it texts START';

const optedOut = async (gw: JobContext, message: Message) =>
  Boolean((await gw.store.get<Contact>('contacts', message.contactId))?.optOut);

async function settle(
  gw: JobContext,
  message: Message,
  patch: Partial<Message> & Pick<Message, 'status'>,
): Promise<void> {
  await gw.store.transact(async (tx) => {
    const current = await tx.get<Message>('messages', message.id);
    if (current?.status === 'pending') await changeStatus(tx, current, patch);
  });
}
