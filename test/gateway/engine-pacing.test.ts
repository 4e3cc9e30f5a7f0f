import path from 'node:path';
import { gatewayModule } from '../helpers/gateway-modules';

type Pacing = typeof import('../../gateway/src/engine/pacing.js', { with: { 'resolution-mode': 'import' } });
type State = import('../../gateway/src/engine/pacing.js', { with: { 'resolution-mode': 'import' } }).PacingState;

let p: Pacing;
beforeAll(async () => {
  p = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/engine/pacing.js'))) as Pacing;
});

const T0 = Date.parse('2025-06-10T12:00:00Z');
const perMinute = (count: number) => ({ count, perMs: 60_000 });

/** Schedules one addition per entry of `times`, keeping the state between them as the engine does. */
function schedule(times: number[], rate = perMinute(30), start?: State) {
  let state = start;
  return times.map((now) => {
    const step = p.nextSend(state, now, rate);
    expect(step.sendAt).toBeGreaterThanOrEqual(now);
    state = step.state;
    return step.sendAt;
  });
}

test('the documented constants', () => {
  expect(p.BURST).toBe(3);
  expect(p.BURST_WINDOW_MS).toBe(10_000);
  expect(p.INITIAL_PACING).toEqual({ burstStartedAt: 0, burstCount: 0, nextSlotAt: 0 });
});

test('100 additions at once at 30/m: 3 at t0, the 97 others at t0+2s, t0+4s, …', () => {
  const slots = schedule(Array(100).fill(T0));
  expect(slots.slice(0, 3)).toEqual([T0, T0, T0]);
  expect(slots.slice(3)).toEqual(Array.from({ length: 97 }, (_, i) => T0 + (i + 1) * 2000));
  expect(new Set(slots.slice(3)).size).toBe(97);
});

test('the state is what the engine stores: plain numbers, JSON round trip included', () => {
  let state: State | undefined;
  const slots: number[] = [];
  for (let i = 0; i < 6; i++) {
    const step = p.nextSend(state, T0 + i, perMinute(30));
    slots.push(step.sendAt);
    state = JSON.parse(JSON.stringify(step.state)) as State;
  }
  // The queue starts one interval after the last immediate send.
  expect(slots).toEqual([T0, T0 + 1, T0 + 2, T0 + 2002, T0 + 4002, T0 + 6002]);
  expect(state).toEqual({ burstStartedAt: T0, burstCount: 3, nextSlotAt: T0 + 8002 });
});

test('additions spread out are each sent at once', () => {
  const times = Array.from({ length: 10 }, (_, i) => T0 + i * 60_000);
  expect(schedule(times)).toEqual(times);
});

test('after a burst, once the window has passed and the queue has drained, sends are immediate again', () => {
  const burst = Array(5).fill(T0); // 3 at once, then T0+2s, T0+4s: drained at T0+4s
  const later = [T0 + 10_000, T0 + 10_000, T0 + 10_000, T0 + 10_000];
  expect(schedule([...burst, ...later])).toEqual([
    T0,
    T0,
    T0,
    T0 + 2000,
    T0 + 4000,
    T0 + 10_000,
    T0 + 10_000,
    T0 + 10_000,
    T0 + 12_000,
  ]);
});

test('additions within the window join the burst until it holds 3', () => {
  expect(schedule([T0, T0 + 4000, T0 + 9999, T0 + 9999])).toEqual([T0, T0 + 4000, T0 + 9999, T0 + 11_999]);
});

test('a new addition never overtakes a queue that is still draining, even after the window', () => {
  const slots = schedule([...Array(100).fill(T0), T0 + 60_000, T0 + 60_000]);
  expect(slots.slice(-3)).toEqual([T0 + 194_000, T0 + 196_000, T0 + 198_000]);
});

test('a slow rate holds after the burst window too: at 1/h, later additions wait for their hour', () => {
  const rate = { count: 1, perMs: 3_600_000 };
  const H = 3_600_000;
  expect(schedule([T0, T0 + 1000, T0 + 20 * 60_000, T0 + 2 * H, T0 + 5 * H], rate)).toEqual([
    T0,
    T0 + 1000,
    T0 + 1000 + H,
    T0 + 1000 + 2 * H,
    T0 + 5 * H,
  ]);
});

test('a queue that fell behind resumes from now, not in a rush', () => {
  const stale: State = { burstStartedAt: T0 - 60_000, burstCount: 3, nextSlotAt: T0 - 30_000 };
  // The window has passed and the queue drained: a new burst.
  expect(schedule([T0, T0, T0, T0, T0], perMinute(30), stale)).toEqual([T0, T0, T0, T0 + 2000, T0 + 4000]);
});

test('intervals are whole milliseconds, rounded so the rate is never exceeded', () => {
  expect(p.intervalMs(perMinute(30))).toBe(2000);
  expect(p.intervalMs(perMinute(7))).toBe(8572);
  expect(p.intervalMs({ count: 3, perMs: 1000 })).toBe(334);
  const slots = schedule(Array(10).fill(T0), perMinute(7));
  expect(slots.slice(3)).toEqual(Array.from({ length: 7 }, (_, i) => T0 + (i + 1) * 8572));
  // Over any minute of the queue, at most 7 paced sends.
  const queued = schedule(Array(200).fill(T0), perMinute(7)).slice(3);
  for (const s of queued) expect(queued.filter((t) => t >= s && t < s + 60_000).length).toBeLessThanOrEqual(7);
});

test('a fast rate: 100/s spaces the queue 10 ms apart', () => {
  const slots = schedule(Array(6).fill(T0), { count: 100, perMs: 1000 });
  expect(slots).toEqual([T0, T0, T0, T0 + 10, T0 + 20, T0 + 30]);
});

describe('a stalled campaign', () => {
  const rate = perMinute(300); // 200 ms apart

  test('counts as stalled 10 s (or two intervals) past a slot, when nothing of it was sent since that slot', () => {
    expect(p.lateAfterMs(rate)).toBe(10_000);
    expect(p.lateAfterMs({ count: 1, perMs: 3_600_000 })).toBe(7_200_000);
    expect(p.stalled(T0, T0 + 10_001, T0 - 200, rate)).toBe(true);
    expect(p.stalled(T0, T0 + 10_001, undefined, rate)).toBe(true);
  });

  test('a queue merely behind, still sending, is not stalled; nor is a send a little late', () => {
    expect(p.stalled(T0, T0 + 60_000, T0 + 59_990, rate)).toBe(false);
    expect(p.stalled(T0, T0 + 9_999, T0 - 200, rate)).toBe(false);
    expect(p.stalled(T0, T0 + 50, T0 - 200, rate)).toBe(false);
  });
});
