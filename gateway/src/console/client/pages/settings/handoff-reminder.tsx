import { useState } from 'preact/hooks';
import type { Settings } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { Field, FormStatus, Panel } from '../../components/form.js';
import { Button } from '../../components/button.js';

/** The form's labels, by the fields of PUT /v1/settings. */
const LABELS = { handoffReminderAfter: 'Remind after' };

/**
 * How long a contact handed to the team may wait for a person's reply before the team is reminded
 * (handoffReminderAfter of /v1/settings): the conversation is then told to every member, whoever has it, and a
 * `handoff_waiting` event goes to the workflows subscribed to it. Off saves null.
 */
export function HandoffReminderPanel(props: { settings: Settings; onSaved: (settings: Settings) => void }) {
  const saved = props.settings.handoffReminderAfter;
  const saving = useAction(LABELS);
  const [on, setOn] = useState(saved !== null);
  const [after, setAfter] = useState(saved ?? '15m');
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    void saving.run(
      () => call<Settings>('PUT', '/v1/settings', { handoffReminderAfter: on ? after.trim() : null }),
      (s) => (s.handoffReminderAfter ? `The team is reminded after ${s.handoffReminderAfter}.` : 'Reminders are off.'),
      (s) => {
        setOn(s.handoffReminderAfter !== null);
        setAfter(s.handoffReminderAfter ?? after);
        props.onSaved(s);
      },
    );
  };
  return (
    <Panel title="When nobody answers" id="handoff-reminder-heading">
      <p class="current" id="handoff-reminder-now">
        {saved ? (
          <>
            Now: the team is reminded after <span class="value">{saved}</span> without a reply
          </>
        ) : (
          'Now: no reminder'
        )}
      </p>
      <form onSubmit={submit} noValidate>
        <label class="choice">
          <input
            type="checkbox"
            checked={on}
            onChange={(e) => setOn(e.currentTarget.checked)}
            aria-describedby="handoff-reminder-on-hint"
          />
          Remind the team when a contact handed over waits for a reply
        </label>
        <p class="hint" id="handoff-reminder-on-hint">
          Once per wait: the conversation is told to every member, whoever has it (in the tab title and, with
          notifications on, a desktop notification and a sound), and workflows subscribed to “Hand-Off Waiting” hear of
          it. A reply from the team ends the wait; the contact writing again does not remind again. The conversation
          stays with whoever has it: anyone may take it.
        </p>
        {on && (
          <Field
            id="handoff-reminder-after"
            label={LABELS.handoffReminderAfter}
            value={after}
            required
            autocomplete="off"
            onInput={(e) => setAfter(e.currentTarget.value)}
            hint="How long without a reply from the team, counted from the hand-off (or the contact's first message since the team's last reply), within the business hours above (around the clock without them): 15m, 30m, 1h … from 1m to 7d."
          />
        )}
        <Button type="submit" class="primary" unavailable={saving.busy}>
          Save reminder
        </Button>
      </form>
      <FormStatus error={saving.error} done={saving.done} />
    </Panel>
  );
}
