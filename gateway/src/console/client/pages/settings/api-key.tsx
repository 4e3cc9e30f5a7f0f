import { useState } from 'preact/hooks';
import type { ApiKey } from '../../answers.js';
import { call } from '../../api.js';
import { ConfirmAction } from '../../components/confirm.js';
import { Copyable, FormStatus, Panel } from '../../components/form.js';

/**
 * Spec §5.2: Settings > Account > API Key. The gateway keeps only a digest of the key, so a key can be shown just
 * once, when generated; generating another stops the old one at once.
 */
export function ApiKeyPanel() {
  const [apiKey, setApiKey] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const generate = async () => {
    setBusy(true);
    const res = await call<ApiKey>('POST', '/v1/api-key');
    setBusy(false);
    setError(res.ok ? undefined : res.error);
    if (res.ok) setApiKey(res.data!.apiKey);
  };
  return (
    <Panel title="API key" id="api-key-heading">
      <p>
        The API key gives full access to this account: n8n and other programs use it to call the API. Keep it out of web
        pages and public places. The gateway stores only a fingerprint of it, so it is shown once, when generated.
      </p>
      {apiKey && (
        <div class="new-secret">
          <Copyable
            id="new-api-key"
            label="Your new API key"
            value={apiKey}
            hint="Copy it now: it will not be shown again. Put it in your n8n LeadChat credentials."
          />
        </div>
      )}
      <ConfirmAction
        label="Generate new API key"
        confirmLabel="Generate and replace the current key"
        busy={busy}
        onConfirm={generate}
        warning="The current key stops working as soon as the new one is generated: every program using it must get the new one."
      />
      <FormStatus
        error={error}
        done={apiKey ? 'A new API key was generated; the previous one no longer works.' : undefined}
      />
    </Panel>
  );
}
