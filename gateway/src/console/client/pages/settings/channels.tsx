import type { Channels } from '../../answers.js';
import { Loading, useResource } from '../../components/load.js';
import { PageTitle } from '../../components/shell.js';
import { InstagramPanel } from './instagram-panel.js';
import { MessengerPanel } from './messenger-panel.js';
import { TwilioPanel } from './twilio-panel.js';
import { WhatsAppPanel } from './whatsapp-panel.js';

/**
 * The built-in channels, one panel per provider: Twilio (SMS, and WhatsApp with a WhatsApp sender), the WhatsApp
 * Cloud API, Messenger and Instagram. Without them SMS and WhatsApp run on the offline log provider; Messenger and
 * Instagram work only once connected. Secrets must be entered again to change anything: the API shows them back
 * masked only.
 */
export function ChannelsPage() {
  const channels = useResource<Channels>('/v1/channels');
  if (!channels.data)
    return (
      <>
        <PageTitle>Channels</PageTitle>
        <Loading error={channels.error} />
      </>
    );
  return (
    <>
      <PageTitle>Channels</PageTitle>
      <p>
        Until a channel is set up here, SMS and WhatsApp messages run on the offline log provider: nothing leaves the
        gateway, which lets you try a funnel end to end first. Messenger and Instagram need their connection to Meta.
      </p>
      <TwilioPanel channels={channels} />
      <WhatsAppPanel channels={channels} />
      <MessengerPanel channels={channels} />
      <InstagramPanel channels={channels} />
    </>
  );
}
