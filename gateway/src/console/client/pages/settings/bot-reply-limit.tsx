import { useState } from 'preact/hooks';
import type { Settings } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { Field, FormStatus, Panel } from '../../components/form.js';
import { Button } from '../../components/button.js';

/** The form's labels, by the fields of PUT /v1/settings. */
const LABELS = { botReplyLimit: 'Answers in an hour' };

/** The number typed, as the API takes it: one that is no number goes as typed, for the API to say what it takes. */
const limitOf = (typed: string): number | string => {
  const trimmed = typed.trim();
  return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed;
};

/**
 * The most answers the bot gives one conversation within an hour before the team takes it (botReplyLimit of
 * /v1/settings): a conversation that runs away, a bridge echoing the bot's replies back or two bots answering each
 * other, would otherwise spend the credits answer after answer. Unticked saves null: no limit.
 */
export function BotReplyLimitPanel(props: { settings: Settings; onSaved: (settings: Settings) => void }) {
  const saved = props.settings.botReplyLimit;
  const saving = useAction(LABELS);
  const [on, setOn] = useState(saved !== null);
  const [limit, setLimit] = useState(String(saved ?? 30));
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    void saving.run(
      () => call<Settings>('PUT', '/v1/settings', { botReplyLimit: on ? limitOf(limit) : null }),
      (s) =>
        s.botReplyLimit === null
          ? 'The bot’s answers are not limited.'
          : `The team takes a conversation once the bot has answered it ${s.botReplyLimit} times in an hour.`,
      (s) => {
        setOn(s.botReplyLimit !== null);
        setLimit(String(s.botReplyLimit ?? limit));
        props.onSaved(s);
      },
    );
  };
  return (
    <Panel title="When the bot answers too much" id="bot-reply-limit-heading">
      <p class="current" id="bot-reply-limit-now">
        {saved === null ? (
          'Now: no limit'
        ) : (
          <>
            Now: the team takes a conversation once the bot has answered it <span class="value">{saved}</span> times in
            an hour
          </>
        )}
      </p>
      <form onSubmit={submit} noValidate>
        <label class="choice">
          <input
            type="checkbox"
            checked={on}
            onChange={(e) => setOn(e.currentTarget.checked)}
            aria-describedby="bot-reply-limit-on-hint"
          />
          Hand a conversation to the team when the bot has answered it N times in an hour
        </label>
        <p class="hint" id="bot-reply-limit-on-hint">
          A conversation that runs away (a custom channel’s bridge that sends the bot’s own replies back as the
          contact’s, two bots answering each other) would be answered every few seconds, each answer paid for. Past the
          limit the bot answers no more: the conversation is handed to the team (“The bot had answered this conversation
          as many times in an hour as the settings allow”), and the contact is told once that a person will answer.
          Giving it back to the bot starts the count afresh.
        </p>
        {on && (
          <Field
            id="bot-reply-limit"
            label={LABELS.botReplyLimit}
            value={limit}
            type="number"
            min="1"
            max="1000"
            step="1"
            inputMode="numeric"
            required
            autocomplete="off"
            onInput={(e) => setLimit(e.currentTarget.value)}
            hint="N: the bot’s answers to one conversation within an hour, from 1 to 1000. A lead’s messages sent together get one answer, so a real conversation does not come near 30."
          />
        )}
        <Button type="submit" class="primary" unavailable={saving.busy}>
          Save limit
        </Button>
      </form>
      <FormStatus error={saving.error} done={saving.done} />
    </Panel>
  );
}
