import { useState } from 'preact/hooks';
import { MAX_WEBHOOKS } from '../../api-contract.js';
import type { PageOf, Webhook } from './answers.js';
import { get } from './api.js';
import { useLiveReload } from './live-reload.js';

/** Where the console lists the subscriptions: the Custom Channel Webhook page's panel. */
export const WEBHOOKS_PATH = '/console/settings/webhook';

/**
 * The account's webhook subscriptions, all of them (an account holds at most MAX_WEBHOOKS, one page), read when the
 * page opens and again when the stream tells one was disabled, enabled or deleted. Undefined until read, or when
 * `enabled` is false (a role that may not read them).
 */
export function useWebhooks(enabled = true): { webhooks?: Webhook[]; error?: string; reload: () => void } {
  const [webhooks, setWebhooks] = useState<Webhook[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const reload = useLiveReload(
    async () => {
      if (!enabled) return;
      const res = await get<PageOf<Webhook>>(`/v1/webhooks?limit=${MAX_WEBHOOKS}`);
      if (res.ok) setWebhooks(res.data!.data);
      setError(res.ok ? undefined : res.error);
    },
    [enabled],
    { concerns: (e) => e.event === 'webhooks.updated' },
  );
  return { webhooks, error, reload };
}

/** Why a subscription is disabled, in a sentence's words. */
export const disabledWhy = (w: Webhook): string =>
  w.disabledReason === 'gone'
    ? 'its receiver answered 410 Gone, asking for no more events'
    : 'every delivery to it failed for 5 days';
