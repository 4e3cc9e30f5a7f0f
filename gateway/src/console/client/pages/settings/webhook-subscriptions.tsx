import type { Webhook } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { FormStatus, Panel } from '../../components/form.js';
import { Loading } from '../../components/load.js';
import { dateTime } from '../../team.js';
import { disabledWhy, useWebhooks } from '../../webhooks.js';
import { Button } from '../../components/button.js';

function statusText(w: Webhook): string {
  if (w.status === 'enabled') return 'Enabled';
  return `Disabled ${dateTime(w.disabledAt!)}: ${disabledWhy(w)}`;
}

function failureText(w: Webhook): string {
  const f = w.lastFailure;
  if (!f) return 'None';
  return `${dateTime(f.at)}: ${f.status === null ? f.error : `HTTP ${f.status}`}`;
}

/**
 * The URLs subscribed to events through the API (an n8n trigger subscribes its workflow on activation), each with
 * its receiver's health; a disabled one is enabled again here (POST /v1/webhooks/{id}/enable).
 */
export function WebhookSubscriptionsPanel() {
  const { webhooks, error, reload } = useWebhooks();
  const enabling = useAction();
  const enable = (w: Webhook) =>
    void enabling.run(
      () => call<Webhook>('POST', `/v1/webhooks/${encodeURIComponent(w.id)}/enable`),
      `Events are posted to ${w.url} again.`,
      reload,
    );
  return (
    <Panel title="Webhook subscriptions" id="webhook-subscriptions-heading">
      <p class="hint">
        Other addresses that receive events, each signed with its own secret: an n8n LeadChat Trigger subscribes its
        workflow when it is activated. A subscription is disabled when its receiver answers 410 Gone, or when every
        delivery to it failed for 5 days; no event is posted to it until it is enabled again.
      </p>
      {!webhooks ? (
        <Loading error={error} />
      ) : webhooks.length === 0 ? (
        <p class="current">No subscriptions.</p>
      ) : (
        <div class="table-scroll" role="region" aria-label="Table of webhook subscriptions" tabIndex={0}>
          <table class="data-table webhooks">
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
                <th scope="col">Last success</th>
                <th scope="col">Last failure</th>
                <th scope="col">Failures in a row</th>
              </tr>
            </thead>
            <tbody>
              {webhooks.map((w) => (
                <tr key={w.id} data-webhook={w.id}>
                  <td class="wrap">{w.url}</td>
                  <td class="events">{w.events.join(', ')}</td>
                  <td class="wrap status">
                    {statusText(w)}
                    {w.status === 'disabled' && (
                      <>
                        {' '}
                        <Button type="button" class="secondary" unavailable={enabling.busy} onClick={() => enable(w)}>
                          Enable
                        </Button>
                      </>
                    )}
                  </td>
                  <td>{w.lastSuccessAt ? dateTime(w.lastSuccessAt) : 'None yet'}</td>
                  <td class="wrap">{failureText(w)}</td>
                  <td class="num">{w.consecutiveFailures}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <FormStatus error={enabling.error} done={enabling.done} />
    </Panel>
  );
}
