import { useState } from 'preact/hooks';
import { CAMPAIGN_LIMITS } from '../../../../api-contract.js';
import type { Settings } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { FormStatus, Panel } from '../../components/form.js';
import { LongText } from '../../components/long-text.js';
import { Button } from '../../components/button.js';
import { CurrentMessage } from './current-message.js';

/** The form's labels, by the fields of PUT /v1/settings. */
const LABELS = { awayMessage: 'Away message' };

/**
 * What a contact is told at a hand-off out of business hours (awayMessage of /v1/settings), instead of any hand-off
 * message. An empty message saves null: the built-in text (defaultAwayMessage), which the field shows as its
 * placeholder.
 */
export function AwayMessagePanel(props: { settings: Settings; onSaved: (settings: Settings) => void }) {
  const { settings } = props;
  const saving = useAction(LABELS);
  const [message, setMessage] = useState(settings.awayMessage ?? '');
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    void saving.run(
      () => call<Settings>('PUT', '/v1/settings', { awayMessage: message.trim() || null }),
      (s) => (s.awayMessage ? 'Away message saved.' : 'The built-in away message is in use.'),
      (s) => {
        setMessage(s.awayMessage ?? '');
        props.onSaved(s);
      },
    );
  };
  return (
    <Panel title="What the contact is told out of hours" id="away-message-heading">
      <CurrentMessage id="away-message-now" own={settings.awayMessage} builtIn={settings.defaultAwayMessage} />
      <form onSubmit={submit} noValidate>
        <LongText
          id="away-message"
          label={LABELS.awayMessage}
          value={message}
          onChange={setMessage}
          rows={2}
          max={CAMPAIGN_LIMITS.handoffMessage}
          placeholder={settings.defaultAwayMessage}
          hint="Sent instead of the hand-off message, a campaign’s own or the bot’s words, when a contact is handed to the team out of business hours. Empty: the built-in message, in the campaign’s or the account’s language."
        />
        <Button type="submit" class="primary" unavailable={saving.busy}>
          Save away message
        </Button>
      </form>
      <FormStatus error={saving.error} done={saving.done} />
    </Panel>
  );
}
