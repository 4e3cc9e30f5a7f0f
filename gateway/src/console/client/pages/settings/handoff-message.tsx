import { useState } from 'preact/hooks';
import { CAMPAIGN_LIMITS } from '../../../../api-contract.js';
import type { Settings } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { Field, FormStatus, Panel } from '../../components/form.js';
import { LongText } from '../../components/long-text.js';
import { Button } from '../../components/button.js';
import { CurrentMessage } from './current-message.js';

/** The form's labels, by the fields of PUT /v1/settings. */
const LABELS = { handoffMessage: 'Hand-off message', language: 'Language' };

/**
 * What a contact is told when the conversation is handed to a person (handoffMessage of /v1/settings), for every
 * campaign that sets no text of its own and for contacts no campaign has; and the account's language, which the
 * built-in text (defaultHandoffMessage) follows. An empty message saves null: the built-in text, which the field
 * shows as its placeholder.
 */
export function HandoffMessagePanel(props: { settings: Settings; onSaved: (settings: Settings) => void }) {
  const { settings } = props;
  const saving = useAction(LABELS);
  const [message, setMessage] = useState(settings.handoffMessage ?? '');
  const [language, setLanguage] = useState(settings.language);
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    const change = { handoffMessage: message.trim() || null, language: language.trim() };
    void saving.run(
      () => call<Settings>('PUT', '/v1/settings', change),
      (s) => (s.handoffMessage ? 'Hand-off message saved.' : 'The built-in hand-off message is in use.'),
      (s) => {
        setMessage(s.handoffMessage ?? '');
        setLanguage(s.language);
        props.onSaved(s);
      },
    );
  };
  return (
    <Panel title="What the contact is told at a hand-off" id="handoff-message-heading">
      <CurrentMessage id="handoff-message-now" own={settings.handoffMessage} builtIn={settings.defaultHandoffMessage} />
      <form onSubmit={submit} noValidate>
        <LongText
          id="handoff-message"
          label={LABELS.handoffMessage}
          value={message}
          onChange={setMessage}
          rows={2}
          max={CAMPAIGN_LIMITS.handoffMessage}
          placeholder={settings.defaultHandoffMessage}
          hint="Sent to the contact once at every hand-off: when they ask for a person, when the bot cannot answer, or when no campaign answers them. A campaign with a hand-off message of its own sends that instead. Asking for a person again while they wait is answered again, at most once every 10 minutes. Empty: the built-in message, in the account’s language."
        />
        <Field
          id="handoff-language"
          label={LABELS.language}
          value={language}
          required
          autocomplete="off"
          onInput={(e) => setLanguage(e.currentTarget.value)}
          hint="The language of the built-in message, for contacts no campaign has (a campaign’s own language comes first): a tag such as en, es, pt-BR, fr, de or it."
        />
        <Button type="submit" class="primary" unavailable={saving.busy}>
          Save hand-off message
        </Button>
      </form>
      <FormStatus error={saving.error} done={saving.done} />
    </Panel>
  );
}
