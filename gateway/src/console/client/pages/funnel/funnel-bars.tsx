import type { Funnel } from '../../answers.js';
import { STEPS } from './steps.js';

/**
 * The totals as a funnel: one bar per step, as long as its count against the widest, with the count and its share
 * of the contacts added written out, so the numbers need no picture to be read.
 */
export function FunnelBars(props: { totals: Funnel['totals'] }) {
  const widest = Math.max(1, ...STEPS.map((s) => props.totals[s.key]));
  const added = props.totals.added;
  return (
    <ol class="funnel-bars">
      {STEPS.map((s) => {
        const n = props.totals[s.key];
        return (
          <li key={s.key} data-step={s.key}>
            <span class="funnel-label">{s.label}</span>
            <svg
              class="funnel-bar"
              viewBox="0 0 100 10"
              preserveAspectRatio="none"
              aria-hidden="true"
              focusable="false"
            >
              <rect x="0" y="0" width={(100 * n) / widest} height="10" fill={s.colour} />
            </svg>
            <span class="funnel-count">
              <span class="count">{n}</span>
              {s.key !== 'added' && added > 0 ? (
                <span class="share"> ({Math.round((100 * n) / added)}% of added)</span>
              ) : null}
            </span>
          </li>
        );
      })}
    </ol>
  );
}
