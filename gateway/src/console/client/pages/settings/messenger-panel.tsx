import type { ChannelsResource } from './channels-data.js';
import { MetaPanel, type MetaPanelText } from './meta-panel.js';

const MESSENGER: MetaPanelText = {
  provider: 'messenger',
  title: 'Messenger',
  name: 'Messenger',
  intro:
    'The messages people send your Facebook Page. Meta lets a business answer within 24 hours of the contact’s last message (a person of your team up to 7 days), never write first.',
  id: {
    name: 'pageId',
    label: 'Page ID',
    inSentence: 'Page ID',
    hint: 'On your Facebook Page, About > Page transparency; also next to the Page in the app dashboard’s Messenger API settings.',
  },
  token: {
    name: 'pageAccessToken',
    label: 'Page access token',
    hint: 'In the app dashboard, Messenger > Messenger API settings > Generate access tokens, for this Page (the app needs pages_messaging).',
  },
  appSecretHint: 'In the app dashboard, App settings > Basic > App secret. It signs the webhook calls Meta makes.',
  webhook: {
    where: 'Messenger > Messenger API settings > Configure webhooks, then the Page’s webhook subscription',
    fields: ['messages', 'messaging_postbacks', 'message_reactions', 'message_deliveries', 'message_reads'],
  },
  removeWarning:
    'Messages to your Page stop reaching the gateway, and nothing can be sent on Messenger until it is connected again.',
};

export const MessengerPanel = ({ channels }: { channels: ChannelsResource }) => (
  <MetaPanel channels={channels} text={MESSENGER} />
);
