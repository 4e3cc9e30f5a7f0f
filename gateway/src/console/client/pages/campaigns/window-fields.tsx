import { WEEKDAYS, type SendingWindow, type Weekday } from '../../../../api-contract.js';
import { DAY_LABEL, withDay } from './campaign.js';
import { Check, Text } from './inputs.js';

/**
 * The inputs of a window of hours in a time zone, on some days of its week (sending-window.ts): a campaign's sending
 * window, the account's business hours. Every id starts with `id` ("c-window-start", "c-window-mon").
 */
export function WindowFields(props: {
  id: string;
  window: SendingWindow;
  onChange: (window: SendingWindow) => void;
  /** What a day left out means, under the days. */
  daysHint: string;
}) {
  const { id, window } = props;
  const set = (key: 'start' | 'end' | 'timezone') => (value: string) => props.onChange({ ...window, [key]: value });
  const setDay = (day: Weekday) => (on: boolean) => props.onChange({ ...window, days: withDay(window.days, day, on) });
  return (
    <>
      <div class="inline-fields">
        <Text id={`${id}-start`} label="From" type="time" value={window.start} onChange={set('start')} />
        <Text id={`${id}-end`} label="Until" type="time" value={window.end} onChange={set('end')} />
        <Text
          id={`${id}-zone`}
          label="Time zone"
          value={window.timezone}
          onChange={set('timezone')}
          placeholder="America/New_York"
        />
      </div>
      <fieldset aria-describedby={`${id}-days-hint`}>
        <legend>Days</legend>
        <p class="hint" id={`${id}-days-hint`}>
          {props.daysHint}
        </p>
        <div class="inline-choices">
          {WEEKDAYS.map((day) => (
            <Check
              key={day}
              id={`${id}-${day}`}
              label={DAY_LABEL[day]}
              checked={!window.days || window.days.includes(day)}
              onChange={setDay(day)}
            />
          ))}
        </div>
      </fieldset>
    </>
  );
}
