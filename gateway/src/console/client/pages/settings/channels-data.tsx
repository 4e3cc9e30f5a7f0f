import type { useResource } from '../../components/load.js';

/** What Meta's platforms (WhatsApp Cloud API, Messenger, Instagram) show back alike: the secret masked, the verify token as saved. */
interface MetaSaved {
  appSecret: string;
  verifyToken: string;
  webhooks: { webhook: string };
}

/** GET /v1/channels: each provider's credentials with secrets masked, and the webhook addresses to give it. */
export interface Channels {
  twilio: null | {
    accountSid: string;
    authToken: string;
    from: string | null;
    messagingServiceSid: string | null;
    whatsappFrom: string | null;
    webhooks: { incoming: string; status: string };
  };
  whatsapp: null | (MetaSaved & { phoneNumberId: string; accessToken: string });
  messenger: null | (MetaSaved & { pageId: string; pageAccessToken: string });
  instagram: null | (MetaSaved & { instagramAccountId: string; accessToken: string });
}

export type ChannelsResource = ReturnType<typeof useResource<Channels>>;

/** The form's values under the API's field names; each input is named `${prefix}${field}`. */
export const valuesOf = (form: HTMLFormElement, names: string[], prefix: string) => {
  const data = new FormData(form);
  return Object.fromEntries(names.map((n) => [n, String(data.get(`${prefix}${n}`) ?? '').trim()]));
};

/** The hint of a secret the API shows back masked: which one is saved, and that it must be entered again. */
export const savedSecretHint = (what: 'token' | 'secret', masked: string) =>
  `A ${what} ending ${masked.replace(/^•+/, '')} is saved; enter it again to save changes.`;
