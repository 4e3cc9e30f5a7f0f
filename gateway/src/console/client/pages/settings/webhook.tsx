import type { Settings } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { ConfirmAction } from '../../components/confirm.js';
import { Copyable, Field, FormStatus, Panel } from '../../components/form.js';
import { Loading, useResource } from '../../components/load.js';
import { PageTitle } from '../../components/shell.js';
import { dateTime } from '../../team.js';
import { HelpTextPanel } from './help-text.js';
import { WebhookSubscriptionsPanel } from './webhook-subscriptions.js';
import { WebhookTestPanel } from './webhook-test.js';
import { Button } from '../../components/button.js';

/**
 * Spec §4.7: the address the gateway posts replies of the custom channel to, and the secret that signs them
 * (Standard Webhooks: webhook-id, webhook-timestamp and webhook-signature headers); a test event to check the
 * receiver; the other receivers of events, subscribed through the API, with their health; and the answer to HELP,
 * the other setting of /v1/settings.
 */
export function WebhookPage() {
  const settings = useResource<Settings>('/v1/settings');
  const saving = useAction({ customChannelWebhookUrl: 'Webhook URL' });
  const rotating = useAction();
  if (!settings.data)
    return (
      <>
        <PageTitle>Custom Channel Webhook</PageTitle>
        <Loading error={settings.error} />
      </>
    );

  const save = (e: SubmitEvent) => {
    e.preventDefault();
    const url = String(new FormData(e.currentTarget as HTMLFormElement).get('webhook-url')).trim();
    void saving.run(
      () => call<Settings>('PUT', '/v1/settings', { customChannelWebhookUrl: url || null }),
      url ? 'Webhook URL saved.' : 'Webhook URL removed.',
      settings.setData,
    );
  };
  const rotate = () =>
    rotating.run(
      () => call<Settings>('POST', '/v1/settings/webhook-secret'),
      'A new signing secret is in use.',
      settings.setData,
    );
  const { customChannelWebhookUrl, webhookSecret, previousSecretExpiresAt } = settings.data;
  return (
    <>
      <PageTitle>Custom Channel Webhook</PageTitle>
      <Panel title="Where replies are sent" id="webhook-url-heading">
        <form onSubmit={save}>
          <Field
            key={customChannelWebhookUrl ?? ''}
            id="webhook-url"
            label="Webhook URL"
            type="url"
            inputMode="url"
            placeholder="https://example.com/leadchat/replies"
            defaultValue={customChannelWebhookUrl ?? ''}
            hint="The gateway posts every reply for a custom channel (bot answers, team replies) to this address. Leave it empty to stop."
          />
          <Button type="submit" class="primary" unavailable={saving.busy}>
            Save
          </Button>
          <FormStatus error={saving.error} done={saving.done} />
        </form>
        <p class="current">
          {customChannelWebhookUrl ? (
            <>
              Replies go to <span class="value">{customChannelWebhookUrl}</span>.
            </>
          ) : (
            'No webhook URL is set: replies are not posted anywhere.'
          )}
        </p>
      </Panel>
      <Panel title="Signing secret" id="webhook-secret-heading">
        <Copyable
          id="webhook-secret"
          label="Signing secret"
          value={webhookSecret}
          hint="Each reply carries webhook-id, webhook-timestamp and webhook-signature headers (Standard Webhooks): check the signature with this secret."
        />
        <ConfirmAction
          label="Rotate secret"
          confirmLabel="Rotate now"
          busy={rotating.busy}
          onConfirm={rotate}
          warning="Replies are signed with the new secret from now on, and for 24 hours with the current one beside it: put the new one into your receiver within that time."
        />
        <FormStatus error={rotating.error} done={rotating.done} />
        {previousSecretExpiresAt && (
          <p class="current">
            The previous secret also signs every reply until {dateTime(previousSecretExpiresAt)}: put the new one into
            your receiver (an n8n credential's Webhook Signing Secret) before then.
          </p>
        )}
      </Panel>
      <WebhookTestPanel />
      <WebhookSubscriptionsPanel />
      <HelpTextPanel helpText={settings.data.helpText} onSaved={settings.setData} />
    </>
  );
}
