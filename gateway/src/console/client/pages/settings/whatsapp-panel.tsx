import type { ChannelsResource } from './channels-data.js';
import { MetaPanel, type MetaPanelText } from './meta-panel.js';

const WHATSAPP: MetaPanelText = {
  provider: 'whatsapp',
  title: 'WhatsApp Cloud API',
  name: 'WhatsApp',
  id: {
    name: 'phoneNumberId',
    label: 'Phone number ID',
    inSentence: 'phone number ID',
    hint: "In Meta's app dashboard, WhatsApp > API Setup.",
  },
  token: { name: 'accessToken', label: 'Access token', hint: 'A permanent token of a system user.' },
  appSecretHint: 'Signs the webhook calls Meta makes.',
  webhook: { where: 'WhatsApp > Configuration > Webhook', fields: ['messages'] },
  removeWarning:
    'WhatsApp through the Cloud API stops; WhatsApp goes back to Twilio if it has a WhatsApp sender, else to the offline log provider.',
};

export const WhatsAppPanel = ({ channels }: { channels: ChannelsResource }) => (
  <MetaPanel channels={channels} text={WHATSAPP} />
);
