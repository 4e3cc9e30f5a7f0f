import { REPEAT_WINDOW_SECONDS, takeDelivery } from '../../nodes/LeadChatTrigger/deliveries';

/**
 * The trigger's record of the deliveries it took. The gateway signs each attempt of a delivery anew, with the same
 * webhook-id, and retries for hours (LEADCHAT_WEBHOOK_RETRIES: 5s, 30s, 2m, 10m, 30m, 1h, 3h, 6h): a retry whose
 * first attempt reached the workflow but whose answer was lost is a repeat however late it comes.
 */
const HOUR = 60 * 60;
const RETRIES = [5, 30, 2 * 60, 10 * 60, 30 * 60, HOUR, 3 * HOUR, 6 * HOUR];
let trigger = 0;
const newTrigger = () => `workflow-${++trigger}:trigger`;

test("every retry of the gateway's schedule is a repeat of the delivery it retries, each signed anew", () => {
  const at = 1_800_000_000;
  const key = newTrigger();
  expect(takeDelivery(key, 'msg_1', String(at), at)).toBe(true);
  let now = at;
  for (const delay of RETRIES) {
    now += delay;
    expect({ delay, taken: takeDelivery(key, 'msg_1', String(now), now) }).toEqual({ delay, taken: false });
  }
  expect(now - at).toBeLessThan(REPEAT_WINDOW_SECONDS);
});

test('an id is taken again once its window is over, and another trigger takes it at once', () => {
  const at = 1_800_000_000;
  const key = newTrigger();
  expect(takeDelivery(key, 'msg_2', String(at), at)).toBe(true);
  expect(takeDelivery(newTrigger(), 'msg_2', String(at), at)).toBe(true);
  const later = at + REPEAT_WINDOW_SECONDS + 1;
  expect(takeDelivery(key, 'msg_2', String(later), later)).toBe(true);
});

test('a delivery without an id is always taken', () => {
  const key = newTrigger();
  expect(takeDelivery(key, undefined, undefined, 1_800_000_000)).toBe(true);
  expect(takeDelivery(key, undefined, undefined, 1_800_000_000)).toBe(true);
});

test('a trigger in use keeps its record while many others are made', () => {
  const at = 1_800_000_000;
  const busy = newTrigger();
  expect(takeDelivery(busy, 'msg_3', String(at), at)).toBe(true);
  for (let i = 0; i < 500; i++) {
    takeDelivery(newTrigger(), `msg_other_${i}`, String(at), at);
    if (i % 50 === 0) takeDelivery(busy, `msg_busy_${i}`, String(at), at);
  }
  expect(takeDelivery(busy, 'msg_3', String(at + HOUR), at + HOUR)).toBe(false);
});
