import { useState } from 'preact/hooks';
import { HANDOFF_ASSIGNMENTS, type HandoffAssignment } from '../../../../api-contract.js';
import type { Settings } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { FormStatus, Panel } from '../../components/form.js';
import { Button } from '../../components/button.js';

const CHOICE: Record<HandoffAssignment, string> = {
  none: 'Nobody: it waits under Unassigned in the inbox, in sight of the whole team, until someone takes it (the default)',
  round_robin:
    'The agents in turn (round robin): each hand-off goes to the next agent who is not away, or to the admins when no agent is available',
};

/** How the team hears of a hand-off under each choice: what the member deciding needs to know. */
const HEARD: Record<HandoffAssignment, string> = {
  none:
    'Now: nobody. A conversation handed over counts in every member’s tab title and, for those who turned notifications on in the inbox, ' +
    'brings a desktop notification and a sound, until someone takes it (replying takes it too). Then only they are told of it, ' +
    'unless nobody answers in time (below).',
  round_robin:
    'Now: the agents in turn. Each conversation handed over is the next agent’s: it counts in their tab title and, with notifications ' +
    'on, brings them a desktop notification and a sound. Only they are told of it, unless nobody answers in time (below); anyone may ' +
    'still take it from them.',
};

/**
 * Who gets a conversation the bot hands over to a person (handoffAssignment of /v1/settings), and how the team hears
 * of it either way: no choice leaves a hand-off unseen. A conversation someone already has stays theirs either way.
 */
export function HandoffAssignmentPanel(props: { settings: Settings; onSaved: (settings: Settings) => void }) {
  const saving = useAction({ handoffAssignment: 'Hand-offs go to' });
  const [chosen, setChosen] = useState<HandoffAssignment | undefined>(undefined);
  const saved = props.settings.handoffAssignment;
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    void saving.run(
      () => call<Settings>('PUT', '/v1/settings', { handoffAssignment: chosen ?? saved }),
      'Hand-off assignment saved.',
      (s) => {
        props.onSaved(s);
        setChosen(undefined);
      },
    );
  };
  return (
    <Panel title="When the bot hands over" id="handoff-assignment-heading">
      <form onSubmit={submit}>
        <fieldset>
          <legend>Hand-offs go to</legend>
          <p class="hint">
            A hand-off is when the bot passes a conversation to a person: the contact asked for one, the bot could not
            answer, or no campaign answers them.
          </p>
          {HANDOFF_ASSIGNMENTS.map((value) => (
            <label class="choice" key={value}>
              <input
                type="radio"
                name="handoff-assignment"
                value={value}
                checked={(chosen ?? saved) === value}
                onChange={() => setChosen(value)}
              />
              {CHOICE[value]}
            </label>
          ))}
        </fieldset>
        <p class="hint" id="handoff-assignment-now">
          {HEARD[saved]}
        </p>
        <Button type="submit" class="primary" unavailable={saving.busy}>
          Set hand-off assignment
        </Button>
      </form>
      <FormStatus error={saving.error} done={saving.done} />
    </Panel>
  );
}
