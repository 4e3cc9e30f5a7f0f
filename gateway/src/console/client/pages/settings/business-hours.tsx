import { useState } from 'preact/hooks';
import type { SendingWindow } from '../../../../api-contract.js';
import type { Settings } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { FormStatus, Panel } from '../../components/form.js';
import { Button } from '../../components/button.js';
import { browserZone, windowText } from '../campaigns/campaign.js';
import { Check } from '../campaigns/inputs.js';
import { WindowFields } from '../campaigns/window-fields.js';

/** The form's labels, by the fields of PUT /v1/settings. */
const LABELS = {
  businessHours: 'Business hours',
  'businessHours.start': 'Business hours: from',
  'businessHours.end': 'Business hours: until',
  'businessHours.timezone': 'Business hours: time zone',
  'businessHours.days': 'Business hours: days',
};

/**
 * When the team works (businessHours of /v1/settings): out of those hours a hand-off tells the contact the away
 * message, and the wait before the reminder counts only the time within them. Off saves null: always open.
 */
export function BusinessHoursPanel(props: { settings: Settings; onSaved: (settings: Settings) => void }) {
  const saved = props.settings.businessHours;
  const saving = useAction(LABELS);
  const [on, setOn] = useState(saved !== null);
  const [hours, setHours] = useState<SendingWindow>(
    saved ?? { start: '09:00', end: '18:00', timezone: browserZone(), days: ['mon', 'tue', 'wed', 'thu', 'fri'] },
  );
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    void saving.run(
      () => call<Settings>('PUT', '/v1/settings', { businessHours: on ? hours : null }),
      (s) => (s.businessHours ? `Business hours saved: ${windowText(s.businessHours)}.` : 'Always open.'),
      (s) => {
        setOn(s.businessHours !== null);
        if (s.businessHours) setHours(s.businessHours);
        props.onSaved(s);
      },
    );
  };
  return (
    <Panel title="Business hours" id="business-hours-heading">
      <p class="current" id="business-hours-now">
        {saved ? (
          <>
            Now: <span class="value">{windowText(saved)}</span>
          </>
        ) : (
          'Now: always open'
        )}
      </p>
      <form onSubmit={submit} noValidate>
        <Check
          id="business-hours-on"
          label="The team works set hours"
          checked={on}
          onChange={setOn}
          hint="Out of them, a contact handed to the team is told the away message below rather than that someone will answer shortly, and the reminder counts only the time within them: handed over at night, the team is reminded once it has been back as long as the reminder says. Unticked: always open."
        />
        {on && (
          <WindowFields
            id="business-hours"
            window={hours}
            onChange={setHours}
            daysHint="Days of the time zone’s week the team works; hours past midnight end the next morning."
          />
        )}
        <Button type="submit" class="primary" unavailable={saving.busy}>
          Save business hours
        </Button>
      </form>
      <FormStatus error={saving.error} done={saving.done} />
    </Panel>
  );
}
