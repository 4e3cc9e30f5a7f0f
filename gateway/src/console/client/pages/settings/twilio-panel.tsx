import type { Channels } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { ConfirmAction } from '../../components/confirm.js';
import { Copyable, Field, FormStatus, Panel } from '../../components/form.js';
import { CallbackReach } from './callback-reach.js';
import { savedSecretHint, valuesOf, type ChannelsResource } from './channels-data.js';
import { Button } from '../../components/button.js';

/** The form's labels, by the fields of PUT /v1/channels/twilio. */
const TWILIO_LABELS = {
  accountSid: 'Account SID',
  authToken: 'Auth token',
  from: 'SMS sender number',
  messagingServiceSid: 'Messaging Service SID',
  whatsappFrom: 'WhatsApp sender number',
};

/** Twilio: SMS, and WhatsApp with a WhatsApp sender. */
export function TwilioPanel({ channels }: { channels: ChannelsResource }) {
  const saving = useAction(TWILIO_LABELS);
  const removing = useAction();
  const saved = channels.data!.twilio;
  const save = (e: SubmitEvent) => {
    e.preventDefault();
    const body = valuesOf(e.currentTarget as HTMLFormElement, Object.keys(TWILIO_LABELS), 'twilio-');
    void saving.run(
      () => call<Channels>('PUT', '/v1/channels/twilio', body),
      'Twilio credentials saved.',
      channels.setData,
    );
  };
  const remove = () =>
    removing.run(
      () => call<Channels>('DELETE', '/v1/channels/twilio'),
      'Twilio credentials removed.',
      channels.setData,
    );
  return (
    <Panel title="Twilio (SMS and WhatsApp)" id="twilio-heading">
      <p class="current">
        {saved ? (
          <>
            Connected: account <span class="value">{saved.accountSid}</span>.
          </>
        ) : (
          'Not set up.'
        )}
      </p>
      <form onSubmit={save} key={JSON.stringify(saved)} noValidate>
        <Field
          id="twilio-accountSid"
          label="Account SID"
          required
          defaultValue={saved?.accountSid ?? ''}
          placeholder="AC…"
          spellcheck={false}
        />
        <Field
          id="twilio-authToken"
          label="Auth token"
          type="password"
          required
          autocomplete="off"
          hint={saved ? savedSecretHint('token', saved.authToken) : undefined}
        />
        <Field
          id="twilio-from"
          label="SMS sender number"
          defaultValue={saved?.from ?? ''}
          placeholder="+14155550123"
          hint="An SMS sender: this number, or a Messaging Service below."
        />
        <Field
          id="twilio-messagingServiceSid"
          label="Messaging Service SID"
          defaultValue={saved?.messagingServiceSid ?? ''}
          placeholder="MG…"
          spellcheck={false}
        />
        <Field
          id="twilio-whatsappFrom"
          label="WhatsApp sender number"
          defaultValue={saved?.whatsappFrom ?? ''}
          placeholder="+14155550123"
          hint="Set it to send WhatsApp through Twilio."
        />
        <Button type="submit" class="primary" unavailable={saving.busy}>
          Save Twilio credentials
        </Button>
      </form>
      <FormStatus error={saving.error} done={saving.done} />
      {saved && (
        <>
          <h3>Addresses to enter in Twilio</h3>
          <Copyable
            id="twilio-incoming-url"
            label="Incoming message webhook"
            value={saved.webhooks.incoming}
            hint="In Twilio's console, under the phone number or Messaging Service: “A message comes in”, HTTP POST."
          />
          <Copyable
            id="twilio-status-url"
            label="Status callback URL"
            value={saved.webhooks.status}
            hint="Delivery statuses come here: the gateway asks Twilio for them itself when its public address (LEADCHAT_PUBLIC_URL) is set."
          />
          <CallbackReach url={saved.webhooks.incoming} channels={channels.data!} provider="Twilio" />
          <ConfirmAction
            label="Remove Twilio credentials"
            confirmLabel="Remove them"
            danger
            busy={removing.busy}
            onConfirm={remove}
            warning="SMS and WhatsApp through Twilio stop; those channels go back to the offline log provider."
          />
        </>
      )}
      <FormStatus error={removing.error} done={removing.done} />
    </Panel>
  );
}
