import { useState } from 'preact/hooks';
import { HANDOFF_ASSIGNMENTS, type HandoffAssignment } from '../../../../api-contract.js';
import type { Settings } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { FormStatus, Panel } from '../../components/form.js';
import { Loading, useResource } from '../../components/load.js';

const CHOICE: Record<HandoffAssignment, string> = {
  none: 'Nobody: the conversation waits under Unassigned in the inbox until someone takes it',
  round_robin: 'The agents in turn (round robin): each hand-off goes to the next active agent, or to the admins when the team has no agent',
};

/**
 * Who gets a conversation the bot hands over to a person (handoffAssignment of /v1/settings). A conversation
 * someone already has stays theirs either way.
 */
export function HandoffAssignmentPanel() {
  const settings = useResource<Settings>('/v1/settings');
  const saving = useAction({ handoffAssignment: 'Hand-offs go to' });
  const [chosen, setChosen] = useState<HandoffAssignment | undefined>(undefined);
  const saved = settings.data?.handoffAssignment;
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    void saving.run(() => call<Settings>('PUT', '/v1/settings', { handoffAssignment: chosen ?? saved }), 'Hand-off assignment saved.', (s) => {
      settings.setData(s);
      setChosen(undefined);
    });
  };
  return (
    <Panel title="When the bot hands over" id="handoff-assignment-heading">
      {!saved ? <Loading error={settings.error} /> : (
        <form onSubmit={submit}>
          <fieldset>
            <legend>Hand-offs go to</legend>
            {HANDOFF_ASSIGNMENTS.map((value) => (
              <label class="choice" key={value}>
                <input type="radio" name="handoff-assignment" value={value} checked={(chosen ?? saved) === value} onChange={() => setChosen(value)} />
                {CHOICE[value]}
              </label>
            ))}
          </fieldset>
          <button type="submit" class="primary" disabled={saving.busy}>Set hand-off assignment</button>
        </form>
      )}
      <FormStatus error={saving.error} done={saving.done} />
    </Panel>
  );
}
