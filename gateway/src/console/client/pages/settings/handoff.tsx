import type { Settings } from '../../answers.js';
import { Panel } from '../../components/form.js';
import { Loading, useResource } from '../../components/load.js';
import { HandoffAssignmentPanel } from './handoff-assignment.js';
import { HandoffMessagePanel } from './handoff-message.js';

/** Who gets a hand-off, and what the contact is told then: both settings of /v1/settings, read once for the two. */
export function HandoffPanels() {
  const settings = useResource<Settings>('/v1/settings');
  if (!settings.data)
    return (
      <Panel title="When the bot hands over" id="handoff-assignment-heading">
        <Loading error={settings.error} />
      </Panel>
    );
  return (
    <>
      <HandoffAssignmentPanel settings={settings.data} onSaved={settings.setData} />
      <HandoffMessagePanel settings={settings.data} onSaved={settings.setData} />
    </>
  );
}
