import { useState } from 'preact/hooks';
import type { Availability } from '../../../api-contract.js';
import type { TeamMember } from '../answers.js';
import { call } from '../api.js';
import { teamChangedHere } from '../team.js';
import { Button } from './button.js';

/**
 * **Away** in the frame of every page: the signed-in member is away (on holiday, off shift) and round robin passes
 * them by, or pressed again, available (PUT /v1/members/me/availability). A toggle button (aria-pressed) whose
 * outcome is said in a status region, so that a screen reader hears what it did; a refusal is shown there to all,
 * and the button stays as it was.
 */
export function AvailabilitySwitch(props: { initial: Availability }) {
  const [availability, setAvailability] = useState<Availability>(props.initial);
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState({ text: '', refused: false });
  const away = availability === 'away';
  const toggle = async () => {
    setBusy(true);
    const res = await call<TeamMember>('PUT', '/v1/members/me/availability', {
      availability: away ? 'available' : 'away',
    });
    setBusy(false);
    if (!res.ok || !res.data) {
      setSaid({ text: `Your availability was not changed: ${res.error ?? 'try again'}`, refused: true });
      return;
    }
    setAvailability(res.data.availability);
    setSaid({
      text:
        res.data.availability === 'away'
          ? 'You are away: hand-offs go to others, and those waiting for you went to the team.'
          : 'You are available: hand-offs come to you in turn again.',
      refused: false,
    });
    teamChangedHere();
  };
  return (
    <>
      <Button
        type="button"
        class={away ? 'availability away' : 'availability secondary'}
        aria-pressed={away}
        unavailable={busy}
        title={away ? 'You are away: press to be available again' : 'Away: hand-offs go to others'}
        onClick={() => void toggle()}
      >
        Away
      </Button>
      {/* Seen by all when refused; otherwise the button's own look says it, and a screen reader is told. */}
      <span role="status" class={said.refused ? 'availability-refused' : 'sr-only'}>
        {said.text}
      </span>
    </>
  );
}
