import { useWebhooks, WEBHOOKS_PATH, disabledWhy } from '../webhooks.js';
import { Link } from '../router.js';

/**
 * The owner and admins (who may enable a subscription) are told on every page while one is disabled: events go
 * nowhere there, an n8n workflow stops hearing them, and nobody may be watching its receiver. It goes once the
 * subscription is enabled again or deleted, on every open tab (the stream's webhooks.updated).
 */
export function WebhooksBanner(props: { mayManage: boolean }) {
  const { webhooks } = useWebhooks(props.mayManage);
  const disabled = webhooks?.filter((w) => w.status === 'disabled') ?? [];
  if (!props.mayManage || disabled.length === 0) return null;
  const [only] = disabled;
  return (
    <p class="warning banner" role="alert" data-banner="webhooks">
      {disabled.length === 1 ? (
        <>
          A webhook subscription is disabled: no event is posted to <span class="value">{only!.url}</span> any more,
          since {disabledWhy(only!)}.
        </>
      ) : (
        <>
          {disabled.length} webhook subscriptions are disabled: no event is posted to them any more (
          {disabled.map((w) => w.url).join(', ')}).
        </>
      )}{' '}
      Fix its receiver, then enable it again. <Link href={WEBHOOKS_PATH}>See webhook subscriptions</Link>
    </p>
  );
}
