import { Fragment, type ComponentChildren } from 'preact';
import type { Channels } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { ConfirmAction } from '../../components/confirm.js';
import { Copyable, Field, FormStatus, Panel } from '../../components/form.js';
import { CallbackReach } from './callback-reach.js';
import { savedSecretHint, valuesOf, type ChannelsResource } from './channels-data.js';
import { Button } from '../../components/button.js';

type MetaProvider = 'whatsapp' | 'messenger' | 'instagram';

/** One of the two fields that differ between Meta's platforms: the account's ID, and its access token. */
interface MetaField {
  /** The field of PUT /v1/channels/{provider}. */
  name: string;
  label: string;
  /** Where the value is found in Meta's dashboards. */
  hint: string;
}

/** What a Meta platform's panel says: its name, its two own fields, and the help for Meta's app dashboard. */
export interface MetaPanelText {
  provider: MetaProvider;
  title: string;
  /** The platform in the buttons: "Save Messenger credentials". */
  name: string;
  intro?: ComponentChildren;
  id: MetaField & { inSentence: string };
  token: MetaField;
  appSecretHint: string;
  /** Where the callback URL and verify token go in Meta's app dashboard, and the webhook fields to subscribe there. */
  webhook: { where: string; fields: string[] };
  removeWarning: string;
}

/** "messages, message_reads and messaging_seen", each a field name. */
function FieldNames(props: { names: string[] }) {
  return (
    <>
      {props.names.map((name, i) => (
        <Fragment key={name}>
          {i === 0 ? '' : i === props.names.length - 1 ? ' and ' : ', '}
          <code>{name}</code>
        </Fragment>
      ))}
    </>
  );
}

/**
 * The credentials of a Meta platform (WhatsApp Cloud API, Messenger, Instagram): the same four values each, the
 * secrets shown back masked only (enter them again to change anything), and once saved the callback URL and verify
 * token to give Meta, with Remove.
 */
export function MetaPanel({ channels, text }: { channels: ChannelsResource; text: MetaPanelText }) {
  const { provider, id, token } = text;
  const labels = {
    [id.name]: id.label,
    [token.name]: token.label,
    appSecret: 'App secret',
    verifyToken: 'Verify token',
  };
  const saving = useAction(labels);
  const removing = useAction();
  const saved = channels.data![provider] as (NonNullable<Channels[MetaProvider]> & Record<string, unknown>) | null;
  const field = (name: string) => `${provider}-${name}`;
  const save = (e: SubmitEvent) => {
    e.preventDefault();
    const body = valuesOf(e.currentTarget as HTMLFormElement, Object.keys(labels), `${provider}-`);
    void saving.run(
      () => call<Channels>('PUT', `/v1/channels/${provider}`, body),
      `${text.title} credentials saved.`,
      channels.setData,
    );
  };
  const remove = () =>
    removing.run(
      () => call<Channels>('DELETE', `/v1/channels/${provider}`),
      `${text.title} credentials removed.`,
      channels.setData,
    );
  return (
    <Panel title={text.title} id={`${provider}-heading`}>
      {text.intro && <p>{text.intro}</p>}
      <p class="current">
        {saved ? (
          <>
            Connected: {id.inSentence} <span class="value">{String(saved[id.name])}</span>.
          </>
        ) : (
          'Not set up.'
        )}
      </p>
      <form onSubmit={save} key={JSON.stringify(saved)} noValidate>
        <Field
          id={field(id.name)}
          label={id.label}
          required
          inputMode="numeric"
          defaultValue={saved ? String(saved[id.name]) : ''}
          hint={id.hint}
        />
        <Field
          id={field(token.name)}
          label={token.label}
          type="password"
          required
          autocomplete="off"
          hint={saved ? savedSecretHint('token', String(saved[token.name])) : token.hint}
        />
        <Field
          id={field('appSecret')}
          label="App secret"
          type="password"
          required
          autocomplete="off"
          hint={saved ? savedSecretHint('secret', saved.appSecret) : text.appSecretHint}
        />
        <Field
          id={field('verifyToken')}
          label="Verify token"
          required
          minLength={8}
          defaultValue={saved?.verifyToken ?? ''}
          hint="Any text of 8 characters or more; enter the same in Meta's webhook settings."
        />
        <Button type="submit" class="primary" unavailable={saving.busy}>
          Save {text.name} credentials
        </Button>
      </form>
      <FormStatus error={saving.error} done={saving.done} />
      {!saved && (
        <p class="hint">
          Once saved, the callback URL to enter in Meta's app dashboard ({text.webhook.where}) shows here with the
          verify token; subscribe there to the webhook {text.webhook.fields.length === 1 ? 'field' : 'fields'}{' '}
          <FieldNames names={text.webhook.fields} />.
        </p>
      )}
      {saved && (
        <>
          <h3>To enter in Meta's app dashboard</h3>
          <Copyable
            id={field('webhook-url')}
            label="Callback URL"
            value={saved.webhooks.webhook}
            hint={
              <>
                {text.webhook.where}: this callback URL with the verify token; then subscribe to the webhook{' '}
                {text.webhook.fields.length === 1 ? 'field' : 'fields'} <FieldNames names={text.webhook.fields} />.
              </>
            }
          />
          <CallbackReach url={saved.webhooks.webhook} channels={channels.data!} provider="Meta" />
          <Copyable
            id={field('verify-token-saved')}
            label="Saved verify token"
            value={saved.verifyToken}
            hint="Meta sends it back once when you save the callback URL, to check the address is yours."
          />
          <ConfirmAction
            label={`Remove ${text.name} credentials`}
            confirmLabel="Remove them"
            danger
            busy={removing.busy}
            onConfirm={remove}
            warning={text.removeWarning}
          />
        </>
      )}
      <FormStatus error={removing.error} done={removing.done} />
    </Panel>
  );
}
