import type { Account } from '../domain/accounts.js';
import type { Message } from '../domain/messages.js';
import { isBuiltIn } from '../api-contract.js';
import { ChannelError } from '../engine/ports/channel-provider.js';
import { changeStatus } from '../engine/message-status.js';
import type { Job, JobResult } from '../store/store.js';
import type { JobKinds } from '../domain/job-kinds.js';
import type { JobContext } from './queue.js';
import { clockNow } from '../clock.js';

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
      return { retryAt: clockNow() + delays[retriesDone]! };
    }
    await settle(gw, message, {
      status: 'failed',
      provider: provider.name,
      error,
      errorCode: err instanceof ChannelError ? err.code : null,
    });
  }
}

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
