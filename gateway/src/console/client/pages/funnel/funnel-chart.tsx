import type { Funnel } from '../../answers.js';
import { STEPS } from './steps.js';

const W = 720;
const H = 260;
const PAD = { left: 40, right: 12, top: 20, bottom: 36 };

/**
 * The counts over time: one line per step across the days of the range, drawn as SVG; a range of one day, where a
 * line would have no length, as a bar per step with its count. A screen reader gets the chart's summary; the same
 * numbers are in the table that follows it.
 */
export function FunnelChart(props: { funnel: Funnel }) {
  const { days } = props.funnel;
  const top = Math.max(1, ...days.flatMap((d) => STEPS.map((s) => d[s.key])));
  const x = (i: number) =>
    PAD.left +
    (days.length === 1 ? (W - PAD.left - PAD.right) / 2 : (i * (W - PAD.left - PAD.right)) / (days.length - 1));
  const y = (n: number) => PAD.top + (H - PAD.top - PAD.bottom) * (1 - n / top);
  const ticks = [...new Set([0, Math.round(top / 2), top])];
  const labelled = [...new Set([0, Math.floor((days.length - 1) / 2), days.length - 1])];
  const oneDay = days.length === 1;
  const anchor = (i: number) => (oneDay ? 'middle' : i === 0 ? 'start' : i === days.length - 1 ? 'end' : 'middle');
  return (
    <figure class="funnel-chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="funnel-chart-title funnel-chart-desc">
        <title id="funnel-chart-title">Funnel steps per day</title>
        <desc id="funnel-chart-desc">
          {`Contacts per step each day from ${props.funnel.from} to ${props.funnel.to}; the highest daily count is ${top}. The table below gives every number.`}
        </desc>
        {ticks.map((t) => (
          <g key={`y${t}`}>
            <line x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} class="grid" />
            <text x={PAD.left - 6} y={y(t) + 4} text-anchor="end" class="axis">
              {String(t)}
            </text>
          </g>
        ))}
        {labelled.map((i) => (
          <text key={`x${i}`} x={x(i)} y={H - 12} text-anchor={anchor(i)} class="axis">
            {days[i]!.date}
          </text>
        ))}
        {oneDay ? (
          <DayBars day={days[0]!} y={y} />
        ) : (
          STEPS.map((s) => (
            <polyline
              key={s.key}
              data-step={s.key}
              fill="none"
              stroke={s.colour}
              stroke-width="2.5"
              points={days.map((d, i) => `${x(i).toFixed(1)},${y(d[s.key]).toFixed(1)}`).join(' ')}
            />
          ))
        )}
      </svg>
      <figcaption>
        <ul class="legend">
          {STEPS.map((s) => (
            <li key={s.key}>
              <svg viewBox="0 0 12 12" aria-hidden="true" focusable="false">
                <rect width="12" height="12" fill={s.colour} />
              </svg>
              {s.label}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}

/** One day's counts as a bar per step, side by side over the day, each with its count above it. */
function DayBars(props: { day: Funnel['days'][number]; y: (n: number) => number }) {
  const width = 36;
  const gap = 12;
  const left = PAD.left + (W - PAD.left - PAD.right - STEPS.length * (width + gap) + gap) / 2;
  const base = props.y(0);
  return (
    <g>
      {STEPS.map((s, i) => {
        const n = props.day[s.key];
        const x = left + i * (width + gap);
        return (
          <g key={s.key}>
            <rect
              data-step={s.key}
              x={x}
              y={props.y(n)}
              width={width}
              height={Math.max(0, base - props.y(n))}
              fill={s.colour}
            />
            <text x={x + width / 2} y={props.y(n) - 4} text-anchor="middle" class="axis">
              {String(n)}
            </text>
          </g>
        );
      })}
    </g>
  );
}

/** The chart's numbers as a table: a row per day, a column per step. */
export function FunnelTable(props: { funnel: Funnel }) {
  return (
    <div class="table-scroll" role="region" aria-labelledby="funnel-table-caption" tabIndex={0}>
      <table class="funnel-table">
        <caption id="funnel-table-caption">{`Contacts per step and day (${props.funnel.timezone})`}</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            {STEPS.map((s) => (
              <th key={s.key} scope="col">
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.funnel.days.map((d) => (
            <tr key={d.date}>
              <th scope="row">{d.date}</th>
              {STEPS.map((s) => (
                <td key={s.key}>{d[s.key]}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
