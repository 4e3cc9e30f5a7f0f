import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { ConfirmAction } from '../../components/confirm.js';
import { Copyable, Field, FormStatus, Panel } from '../../components/form.js';
import { Loading, useResource } from '../../components/load.js';
import { PageTitle } from '../../components/shell.js';

/** GET /v1/channels: each provider's credentials with secrets masked, and the webhook addresses to give it. */
interface Channels {
  twilio: null | {
    accountSid: string;
    authToken: string;
    from: string | null;
    messagingServiceSid: string | null;
    whatsappFrom: string | null;
    webhooks: { incoming: string; status: string };
  };
  whatsapp: null | {
    phoneNumberId: string;
    accessToken: string;
    appSecret: string;
    verifyToken: string;
    webhooks: { webhook: string };
  };
}

type Resource = ReturnType<typeof useResource<Channels>>;

/** The forms' labels, by the fields of PUT /v1/channels/twilio and /v1/channels/whatsapp. */
const TWILIO_LABELS = {
  accountSid: 'Account SID',
  authToken: 'Auth token',
  from: 'SMS sender number',
  messagingServiceSid: 'Messaging Service SID',
  whatsappFrom: 'WhatsApp sender number',
};
const WHATSAPP_LABELS = { phoneNumberId: 'Phone number ID', accessToken: 'Access token', appSecret: 'App secret', verifyToken: 'Verify token' };

const valuesOf = (form: HTMLFormElement, names: string[], prefix: string) => {
  const data = new FormData(form);
  return Object.fromEntries(names.map((n) => [n, String(data.get(`${prefix}${n}`) ?? '').trim()]));
};

/**
 * The built-in channels: Twilio (SMS, and WhatsApp with a WhatsApp sender) and the WhatsApp Cloud API. Without
 * them SMS and WhatsApp run on the offline log provider. Secrets must be entered again to change anything: the API
 * shows them back masked only.
 */
export function ChannelsPage() {
  const channels = useResource<Channels>('/v1/channels');
  if (!channels.data) return <><PageTitle>Channels</PageTitle><Loading error={channels.error} /></>;
  return (
    <>
      <PageTitle>Channels</PageTitle>
      <p>
        Until a channel is set up here, SMS and WhatsApp messages run on the offline log provider: nothing leaves the
        gateway, which lets you try a funnel end to end first.
      </p>
      <TwilioPanel channels={channels} />
      <WhatsAppPanel channels={channels} />
    </>
  );
}

function TwilioPanel({ channels }: { channels: Resource }) {
  const saving = useAction(TWILIO_LABELS);
  const removing = useAction();
  const saved = channels.data!.twilio;
  const save = (e: SubmitEvent) => {
    e.preventDefault();
    const body = valuesOf(e.currentTarget as HTMLFormElement, ['accountSid', 'authToken', 'from', 'messagingServiceSid', 'whatsappFrom'], 'twilio-');
    void saving.run(() => call<Channels>('PUT', '/v1/channels/twilio', body), 'Twilio credentials saved.', channels.setData);
  };
  const remove = () => removing.run(() => call<Channels>('DELETE', '/v1/channels/twilio'), 'Twilio credentials removed.', channels.setData);
  return (
    <Panel title="Twilio (SMS and WhatsApp)" id="twilio-heading">
      <p class="current">{saved ? <>Connected: account <span class="value">{saved.accountSid}</span>.</> : 'Not set up.'}</p>
      <form onSubmit={save} key={JSON.stringify(saved)} noValidate>
        <Field id="twilio-accountSid" label="Account SID" required defaultValue={saved?.accountSid ?? ''} placeholder="AC…" spellcheck={false} />
        <Field id="twilio-authToken" label="Auth token" type="password" required autocomplete="off"
          hint={saved ? `A token ending ${saved.authToken.replace(/^•+/, '')} is saved; enter it again to save changes.` : undefined} />
        <Field id="twilio-from" label="SMS sender number" defaultValue={saved?.from ?? ''} placeholder="+14155550123"
          hint="An SMS sender: this number, or a Messaging Service below." />
        <Field id="twilio-messagingServiceSid" label="Messaging Service SID" defaultValue={saved?.messagingServiceSid ?? ''} placeholder="MG…" spellcheck={false} />
        <Field id="twilio-whatsappFrom" label="WhatsApp sender number" defaultValue={saved?.whatsappFrom ?? ''} placeholder="+14155550123"
          hint="Set it to send WhatsApp through Twilio." />
        <button type="submit" class="primary" disabled={saving.busy}>Save Twilio credentials</button>
      </form>
      <FormStatus error={saving.error} done={saving.done} />
      {saved && (
        <>
          <h3>Addresses to enter in Twilio</h3>
          <Copyable id="twilio-incoming-url" label="Incoming message webhook" value={saved.webhooks.incoming}
            hint="In Twilio's console, under the phone number or Messaging Service: “A message comes in”, HTTP POST." />
          <Copyable id="twilio-status-url" label="Status callback URL" value={saved.webhooks.status}
            hint="Delivery statuses come here: the gateway asks Twilio for them itself when its public address (LEADCHAT_PUBLIC_URL) is set." />
          <ConfirmAction label="Remove Twilio credentials" confirmLabel="Remove them" danger busy={removing.busy} onConfirm={remove}
            warning="SMS and WhatsApp through Twilio stop; those channels go back to the offline log provider." />
        </>
      )}
      <FormStatus error={removing.error} done={removing.done} />
    </Panel>
  );
}

function WhatsAppPanel({ channels }: { channels: Resource }) {
  const saving = useAction(WHATSAPP_LABELS);
  const removing = useAction();
  const saved = channels.data!.whatsapp;
  const save = (e: SubmitEvent) => {
    e.preventDefault();
    const body = valuesOf(e.currentTarget as HTMLFormElement, ['phoneNumberId', 'accessToken', 'appSecret', 'verifyToken'], 'whatsapp-');
    void saving.run(() => call<Channels>('PUT', '/v1/channels/whatsapp', body), 'WhatsApp Cloud API credentials saved.', channels.setData);
  };
  const remove = () => removing.run(() => call<Channels>('DELETE', '/v1/channels/whatsapp'), 'WhatsApp Cloud API credentials removed.', channels.setData);
  return (
    <Panel title="WhatsApp Cloud API" id="whatsapp-heading">
      <p class="current">{saved ? <>Connected: phone number ID <span class="value">{saved.phoneNumberId}</span>.</> : 'Not set up.'}</p>
      <form onSubmit={save} key={JSON.stringify(saved)} noValidate>
        <Field id="whatsapp-phoneNumberId" label="Phone number ID" required inputMode="numeric" defaultValue={saved?.phoneNumberId ?? ''}
          hint="In Meta's app dashboard, WhatsApp > API Setup." />
        <Field id="whatsapp-accessToken" label="Access token" type="password" required autocomplete="off"
          hint={saved ? `A token ending ${saved.accessToken.replace(/^•+/, '')} is saved; enter it again to save changes.` : 'A permanent token of a system user.'} />
        <Field id="whatsapp-appSecret" label="App secret" type="password" required autocomplete="off"
          hint={saved ? `A secret ending ${saved.appSecret.replace(/^•+/, '')} is saved; enter it again to save changes.` : 'Signs the webhook calls Meta makes.'} />
        <Field id="whatsapp-verifyToken" label="Verify token" required minLength={8} defaultValue={saved?.verifyToken ?? ''}
          hint="Any text of 8 characters or more; enter the same in Meta's webhook settings." />
        <button type="submit" class="primary" disabled={saving.busy}>Save WhatsApp credentials</button>
      </form>
      <FormStatus error={saving.error} done={saving.done} />
      {saved && (
        <>
          <h3>Address to enter in Meta's app dashboard</h3>
          <Copyable id="whatsapp-webhook-url" label="Callback URL" value={saved.webhooks.webhook}
            hint="WhatsApp > Configuration > Webhook: this callback URL with the verify token above; subscribe to “messages”." />
          <ConfirmAction label="Remove WhatsApp credentials" confirmLabel="Remove them" danger busy={removing.busy} onConfirm={remove}
            warning="WhatsApp through the Cloud API stops; WhatsApp goes back to Twilio if it has a WhatsApp sender, else to the offline log provider." />
        </>
      )}
      <FormStatus error={removing.error} done={removing.done} />
    </Panel>
  );
}
