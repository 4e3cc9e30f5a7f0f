import type { Settings } from '../../answers.js';
import { Panel } from '../../components/form.js';
import { Loading, useResource } from '../../components/load.js';
import { HandoffAssignmentPanel } from './handoff-assignment.js';
import { HandoffMessagePanel } from './handoff-message.js';
import { HandoffReminderPanel } from './handoff-reminder.js';
import { BotReplyLimitPanel } from './bot-reply-limit.js';
import { BusinessHoursPanel } from './business-hours.js';
import { AwayMessagePanel } from './away-message.js';

/**
 * Who gets a hand-off, what the contact is told then, when the team works and what the contact is told out of those
 * hours, when the team is reminded that nobody answered, and when the team takes a conversation the bot has answered
 * too often: settings of /v1/settings, read once for them all.
 */
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
      <BusinessHoursPanel settings={settings.data} onSaved={settings.setData} />
      <AwayMessagePanel settings={settings.data} onSaved={settings.setData} />
      <HandoffReminderPanel settings={settings.data} onSaved={settings.setData} />
      <BotReplyLimitPanel settings={settings.data} onSaved={settings.setData} />
    </>
  );
}
