import type { ChannelsResource } from './channels-data.js';
import { MetaPanel, type MetaPanelText } from './meta-panel.js';

const INSTAGRAM: MetaPanelText = {
  provider: 'instagram',
  title: 'Instagram',
  name: 'Instagram',
  intro:
    'The direct messages of an Instagram professional (business or creator) account. As on Messenger, a business answers within 24 hours (a person of your team up to 7 days) and never writes first.',
  id: {
    name: 'instagramAccountId',
    label: 'Instagram account ID',
    inSentence: 'Instagram account ID',
    hint: 'In the app dashboard, Instagram > API setup: shown next to the account when you generate its token.',
  },
  token: {
    name: 'accessToken',
    label: 'Access token',
    hint: 'Generated on the same page for the account (with instagram_business_manage_messages, or instagram_manage_messages for an account linked to a Page).',
  },
  appSecretHint:
    'In the app dashboard, App settings > Basic > App secret (with Instagram login: the Instagram app secret of the API setup page). It signs the webhook calls Meta makes.',
  webhook: {
    where: 'Instagram > API setup > Configure webhooks',
    fields: ['messages', 'messaging_postbacks', 'message_reactions', 'messaging_seen'],
  },
  removeWarning:
    'Instagram messages stop reaching the gateway, and nothing can be sent on Instagram until it is connected again.',
};

export const InstagramPanel = ({ channels }: { channels: ChannelsResource }) => (
  <MetaPanel channels={channels} text={INSTAGRAM} />
);
