import { useEffect, useState } from 'preact/hooks';
import { get } from '../../api.js';
import { useLiveReload } from '../../live-reload.js';

/** GET /console/api/business-hours: whether the team is out of its hours, and when that changes. */
interface HoursNow {
  outOfHours: boolean;
  /** When the team is back, as its clocks read it: "Mon 09:00". */
  back: string | null;
  /** Whether the team is reminded of a contact who waits (handoffReminderAfter). */
  reminders: boolean;
  /** How long until the hours open or close; null without hours. */
  changesInMs: number | null;
}

const HOURS_PATH = '/console/api/business-hours';
/** Asked again a moment after the hours open or close, so the gateway's clock has surely passed it too. */
const AFTER_CHANGE_MS = 1_000;

/**
 * Says, quietly, while the team is out of its business hours what that means for a contact handed off now and for the
 * team's reminders (when it has them on); nothing in hours, nor for an account without hours. Read again when the hours
 * open or close, and when the stream tells they were changed (hours.updated). The gateway judges the hours on its own
 * clock.
 */
export function HoursStatus() {
  const [now, setNow] = useState<HoursNow | undefined>(undefined);
  const reload = useLiveReload(
    async () => {
      const res = await get<HoursNow>(HOURS_PATH);
      if (res.ok) setNow(res.data);
    },
    [],
    { concerns: (e) => e.event === 'hours.updated' },
  );
  useEffect(() => {
    if (now?.changesInMs == null) return;
    const timer = setTimeout(reload, now.changesInMs + AFTER_CHANGE_MS);
    return () => clearTimeout(timer);
  }, [now]);
  return (
    <p class="hours-status" role="status">
      {!now?.outOfHours
        ? ''
        : now.reminders
          ? `Out of business hours: contacts handed off now are told the away message; reminders wait until ${now.back}.`
          : `Out of business hours until ${now.back}: contacts handed off now are told the away message.`}
    </p>
  );
}
