import type { Channels } from '../../answers.js';
import type { useResource } from '../../components/load.js';

/** GET /v1/channels as the channels page holds it: each panel shows it, and puts in what its save answered. */
export type ChannelsResource = ReturnType<typeof useResource<Channels>>;

/** The form's values under the API's field names; each input is named `${prefix}${field}`. */
export const valuesOf = (form: HTMLFormElement, names: string[], prefix: string) => {
  const data = new FormData(form);
  return Object.fromEntries(names.map((n) => [n, String(data.get(`${prefix}${n}`) ?? '').trim()]));
};

/** The hint of a secret the API shows back masked: which one is saved, and that it must be entered again. */
export const savedSecretHint = (what: 'token' | 'secret', masked: string) =>
  `A ${what} ending ${masked.replace(/^•+/, '')} is saved; enter it again to save changes.`;
