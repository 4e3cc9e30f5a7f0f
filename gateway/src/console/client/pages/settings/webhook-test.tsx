import { useState } from 'preact/hooks';
import type { WebhookTestResult } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { FormStatus, Panel } from '../../components/form.js';
import { Button } from '../../components/button.js';

/**
 * "Send test event": the API posts one signed event to the saved URL at once and says what the receiver did. A
 * receiver that failed is an outcome to show, not an error of the request; the API's refusals (no URL saved, a
 * URL the operator does not allow, too many tests) come as the form's error.
 */
export function WebhookTestPanel() {
  const sending = useAction();
  const [result, setResult] = useState<WebhookTestResult | undefined>(undefined);
  const send = () => {
    setResult(undefined);
    void sending.run(() => call<WebhookTestResult>('POST', '/v1/settings/webhook-test'), 'Test event sent.', setResult);
  };
  return (
    <Panel title="Test the webhook" id="webhook-test-heading">
      <p class="hint" id="webhook-test-hint">
        Posts one event of type <code>test</code> to the saved URL now, signed with the current secret as replies are,
        and shows what your receiver answered. Nothing is stored or retried.
      </p>
      <Button
        type="button"
        class="secondary"
        onClick={send}
        unavailable={sending.busy}
        aria-describedby="webhook-test-hint"
      >
        {sending.busy ? 'Sending…' : 'Send test event'}
      </Button>
      <FormStatus error={sending.error} />
      <div class="webhook-test-outcome" role="status">
        {result && <Outcome result={result} />}
      </div>
    </Panel>
  );
}

function Outcome(props: { result: WebhookTestResult }) {
  const r = props.result;
  return (
    <>
      <p class={r.ok ? 'done' : 'error'}>
        {r.ok ? `Delivered: your receiver answered HTTP ${r.status}.` : `Not delivered: ${r.error ?? 'unknown error'}.`}
      </p>
      <dl class="webhook-test-details">
        <dt>URL</dt>
        <dd>{r.url}</dd>
        <dt>HTTP status</dt>
        <dd>{r.status ?? 'none'}</dd>
        <dt>Time</dt>
        <dd>{r.durationMs} ms</dd>
        <dt>webhook-id</dt>
        <dd>
          <code>{r.webhookId}</code>
        </dd>
      </dl>
    </>
  );
}
