import type { Campaign } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { Button } from '../../components/button.js';
import { ConfirmAction } from '../../components/confirm.js';
import { FormStatus, Panel } from '../../components/form.js';

/**
 * A campaign done with is archived, behind a second step, for the owner and admins: it stops as a pause stops it and
 * leaves the table of campaigns. Archived, its page says so and offers to bring it back, paused: the API changes an
 * archived campaign in no other way, so its settings are read as text until then.
 */
export function ArchivePanel(props: { campaign: Campaign; onChanged: (c: Campaign) => void }) {
  const path = `/v1/campaigns/${encodeURIComponent(props.campaign.id)}`;
  const changing = useAction();
  const to = (status: 'archived' | 'paused', done: string) =>
    changing.run(() => call<Campaign>('PATCH', path, { status }), done, props.onChanged);
  if (props.campaign.status === 'archived')
    return (
      <Panel title="Archived" id="archive-heading">
        <p>
          This campaign is archived: it sends nothing and its bot answers nothing. Bring it back to change it; it comes
          back paused, and goes Live again from there.
        </p>
        <Button
          type="button"
          class="secondary"
          unavailable={changing.busy}
          onClick={() => to('paused', 'Brought back, paused.')}
        >
          Bring back
        </Button>
        <FormStatus error={changing.error} done={changing.done} />
      </Panel>
    );
  return (
    <Panel title="Archive this campaign" id="archive-heading">
      <ConfirmAction
        label="Archive campaign"
        confirmLabel="Archive the campaign"
        busy={changing.busy}
        warning="It stops as a paused campaign does: nothing more is sent, and its bot leaves its conversations to your team. It leaves the table of campaigns (Show archived campaigns finds it) and no longer keeps its list from being deleted."
        onConfirm={() => to('archived', 'Campaign archived.')}
      />
      <FormStatus error={changing.error} done={changing.done} />
    </Panel>
  );
}
