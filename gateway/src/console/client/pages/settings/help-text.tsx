import { useState } from 'preact/hooks';
import { TEXT_LIMITS } from '../../../../api-contract.js';
import type { Settings } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { FormStatus, Panel } from '../../components/form.js';
import { LongText } from '../../components/long-text.js';
import { Button } from '../../components/button.js';

/**
 * The answer a contact gets on writing HELP (helpText of /v1/settings). "Use the default" saves null: the API then
 * answers its own default text, which the form shows.
 */
export function HelpTextPanel(props: { helpText: string; onSaved: (settings: Settings) => void }) {
  const saving = useAction({ helpText: 'HELP answer' });
  const [value, setValue] = useState(props.helpText);
  const save = (helpText: string | null, done: string) =>
    void saving.run(
      () => call<Settings>('PUT', '/v1/settings', { helpText }),
      done,
      (s) => {
        setValue(s.helpText);
        props.onSaved(s);
      },
    );
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    save(value.trim(), 'HELP answer saved.');
  };
  return (
    <Panel title="Answer to HELP" id="help-text-heading">
      <form onSubmit={submit}>
        <LongText
          id="help-text"
          label="HELP answer"
          value={value}
          onChange={setValue}
          required
          max={TEXT_LIMITS.helpText}
          hint="Sent to a contact who writes HELP, on any channel."
        />
        <Button type="submit" class="primary" unavailable={saving.busy}>
          Set HELP answer
        </Button>{' '}
        <Button
          type="button"
          class="secondary"
          unavailable={saving.busy}
          onClick={() => save(null, 'The default HELP answer is in use.')}
        >
          Use the default
        </Button>
      </form>
      <FormStatus error={saving.error} done={saving.done} />
    </Panel>
  );
}
