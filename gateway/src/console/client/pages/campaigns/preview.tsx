import { useState } from 'preact/hooks';
import type { Contact, OpeningPreview } from '../../answers.js';
import { get, type ApiResult } from '../../api.js';
import { useAction } from '../../components/action.js';
import { Field, FormStatus, Panel } from '../../components/form.js';
import { phoneHint, useDefaultCountry } from '../../default-country.js';
import { Button } from '../../components/button.js';

/**
 * The opening message as one contact would get it, personalized: the contact found by phone or email
 * (GET /v1/contacts), then GET /v1/campaigns/{id}/preview. Nothing is sent. It previews the saved campaign.
 */
export function PreviewPanel(props: { campaignId: string }) {
  const country = useDefaultCountry();
  const [by, setBy] = useState<'phone' | 'email'>('phone');
  const [preview, setPreview] = useState<OpeningPreview | undefined>(undefined);
  const finding = useAction();
  const run = (e: SubmitEvent) => {
    e.preventDefault();
    const value = String(new FormData(e.currentTarget as HTMLFormElement).get('preview-contact') ?? '').trim();
    setPreview(undefined);
    void finding.run(
      async (): Promise<ApiResult<OpeningPreview>> => {
        const contact = await get<Contact>(
          `/v1/contacts?${by === 'phone' ? 'phoneNumber' : 'email'}=${encodeURIComponent(value)}`,
        );
        if (!contact.ok) return { ...contact, data: undefined };
        return get<OpeningPreview>(
          `/v1/campaigns/${encodeURIComponent(props.campaignId)}/preview?contactId=${encodeURIComponent(contact.data!.id)}`,
        );
      },
      'Preview ready. Nothing was sent.',
      setPreview,
    );
  };
  return (
    <Panel title="Preview the opening message" id="preview-heading">
      <p>See the saved opening message as one of your contacts would get it. Nothing is sent.</p>
      <form onSubmit={run}>
        <fieldset>
          <legend>Find the contact by</legend>
          <label class="choice">
            <input type="radio" name="preview-by" checked={by === 'phone'} onChange={() => setBy('phone')} /> Phone
          </label>
          <label class="choice">
            <input type="radio" name="preview-by" checked={by === 'email'} onChange={() => setBy('email')} /> Email
          </label>
        </fieldset>
        <Field
          id="preview-contact"
          label={by === 'phone' ? 'Contact’s phone' : 'Contact’s email'}
          inputMode={by === 'phone' ? 'tel' : 'email'}
          required
          placeholder={by === 'phone' ? (country ? undefined : '+14155550123') : 'lead@example.com'}
          hint={by === 'phone' ? phoneHint(country) : undefined}
        />
        <Button type="submit" class="primary" unavailable={finding.busy}>
          Preview
        </Button>
      </form>
      <FormStatus error={finding.error} done={finding.done} />
      {preview && (
        <div class="preview" aria-label="Opening message preview" role="region">
          <dl class="facts">
            <dt>Channel</dt>
            <dd>{preview.channel === 'custom' ? `custom (${preview.customChannel ?? ''})` : preview.channel}</dd>
            <dt>To</dt>
            <dd>{preview.to || 'no address for this channel'}</dd>
            {preview.template && (
              <>
                <dt>Template</dt>
                <dd>
                  {preview.template.name} ({preview.template.language})
                  {preview.template.params.length ? `, parameters: ${preview.template.params.join(' | ')}` : ''}
                </dd>
              </>
            )}
          </dl>
          <p class="message">{preview.body || '(no opening message)'}</p>
        </div>
      )}
    </Panel>
  );
}
