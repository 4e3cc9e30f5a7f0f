import type { Conversation, TeamMember } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { AppliedChoice } from '../../components/applied-choice.js';
import { FormStatus } from '../../components/form.js';
import { acting } from '../../notify/own-actions.js';
import { ROLE_LABEL } from '../../roles.js';
import { Button } from '../../components/button.js';

/** The team as the inbox names it: each member's name by id, the signed-in member's own id. */
export interface Team {
  members: TeamMember[];
  me: string;
}

/** Whom a conversation is assigned to, in words: "you", a member's name, or someone who left the team. */
export function assigneeName(team: Team, id: string): string {
  if (id === team.me) return 'you';
  return team.members.find((m) => m.id === id)?.name ?? 'someone no longer on the team';
}

const SHOWN = [
  ['me', 'Mine'],
  ['none', 'Unassigned'],
  ['', 'All'],
] as const;

/** Mine, Unassigned or All: GET /v1/conversations?assigneeId=me|none, or no such filter. */
export function AssigneeSwitch(props: { value: string; onChange: (assigneeId: string) => void }) {
  return (
    <fieldset class="inbox-switch">
      <legend>Assigned to</legend>
      {SHOWN.map(([value, label]) => (
        <label key={value} class="choice">
          <input
            type="radio"
            name="inbox-assignee"
            value={value}
            checked={props.value === value}
            onChange={() => props.onChange(value)}
          />
          {label}
        </label>
      ))}
    </fieldset>
  );
}

/**
 * Who has the conversation to answer (POST /v1/conversations/{id}/assign): an active member of the team, or
 * nobody. Only active members are offered: an invited one cannot answer yet, and the API refuses them. One who is
 * away is offered, named so ("Pat (agent, away)"): a person may choose them. The member's own assignment is not told
 * back to them as news (notify/own-actions).
 */
export function AssigneePicker(props: {
  conversation: Conversation;
  team: Team;
  onChanged: (c: Conversation) => void;
}) {
  const assigning = useAction();
  const { conversation, team } = props;
  const current = conversation.assigneeId;
  const assign = (memberId: string | null) =>
    assigning.run(
      () => {
        acting(team.me, conversation.id);
        // Only from whoever it shows: a colleague who took it meanwhile keeps it, and the refusal names them.
        return call<Conversation>('POST', `/v1/conversations/${encodeURIComponent(conversation.id)}/assign`, {
          memberId,
          expectedAssigneeId: current ?? null,
        });
      },
      (c) => (c.assigneeId ? `Assigned to ${assigneeName(team, c.assigneeId)}.` : 'Assigned to nobody.'),
      props.onChanged,
    );
  const active = team.members.filter((m) => m.status === 'active');
  // Assigned by a person's choice to someone away (round robin never is): the picker says so.
  const away = team.members.find((m) => m.id === current && m.availability === 'away');
  // Assign to me goes once it is done: the focus goes to the choice it made.
  const picker = () => document.getElementById('thread-assignee')?.focus();
  return (
    <div class="inbox-assign">
      <label for="thread-assignee">Assigned to</label>
      <div class="inbox-assign-row">
        <AppliedChoice
          id="thread-assignee"
          value={current ?? ''}
          apply="Assign"
          busy={assigning.busy}
          onApply={(memberId) => assign(memberId || null)}
        >
          <option value="">Nobody</option>
          {active.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name} ({m.id === team.me ? 'you' : ROLE_LABEL[m.role].toLowerCase()}
              {m.availability === 'away' ? ', away' : ''})
            </option>
          ))}
          {current && !active.some((m) => m.id === current) && (
            <option value={current}>{assigneeName(team, current)}</option>
          )}
        </AppliedChoice>
        {current !== team.me && (
          <Button
            type="button"
            class="secondary"
            unavailable={assigning.busy}
            onClick={() => void assign('me').then((ok) => ok && picker())}
          >
            Assign to me
          </Button>
        )}
      </div>
      {away && (
        <p class="hint" id="thread-assignee-away">
          {away.id === team.me
            ? 'You are away: the contact waits until you are back'
            : `${away.name} is away: the contact waits until they are back`}
          , or until someone else takes it.
        </p>
      )}
      <FormStatus error={assigning.error} done={assigning.done} />
    </div>
  );
}
