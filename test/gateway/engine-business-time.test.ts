import path from 'node:path';
import fc from 'fast-check';
import { gatewayModule } from '../helpers/gateway-modules';

type Windows = typeof import('../../gateway/src/domain/sending-window.js', { with: { 'resolution-mode': 'import' } });
type Hours = typeof import('../../gateway/src/domain/business-time.js', { with: { 'resolution-mode': 'import' } });
type Window = import('../../gateway/src/api-contract.js', { with: { 'resolution-mode': 'import' } }).SendingWindow;

let w: Windows;
let b: Hours;
beforeAll(async () => {
  w = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/domain/sending-window.js'))) as Windows;
  b = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/domain/business-time.js'))) as Hours;
});

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const PARIS = 'Europe/Paris';
const NY = 'America/New_York';
const MON_FRI = ['mon', 'tue', 'wed', 'thu', 'fri'];
const hours = (start: string, end: string, timezone = PARIS, days: string[] | null = MON_FRI): Window =>
  w.parseSendingWindow({ start, end, timezone, days });
/** When a wait begun at `from` runs out, counting business time only. */
const due = (window: Window | null, from: string, wait: number) => iso(b.afterBusinessTime(window, at(from), wait));

describe('afterBusinessTime', () => {
  const office = () => hours('09:00', '18:00');

  test('no business hours: always open, the wait runs around the clock', () => {
    expect(due(null, '2026-03-24T21:00:00Z', 15 * MINUTE)).toBe('2026-03-24T21:15:00.000Z');
  });

  test('within the hours: the wait runs as it would around the clock', () => {
    // Tue 24 March 2026, 10:00 in Paris (CET, UTC+1) → 10:15.
    expect(due(office(), '2026-03-24T09:00:00Z', 15 * MINUTE)).toBe('2026-03-24T09:15:00.000Z');
  });

  test('handed off at night: the wait starts at the next opening (22:00 → 09:15 the next morning)', () => {
    expect(due(office(), '2026-03-24T21:00:00Z', 15 * MINUTE)).toBe('2026-03-25T08:15:00.000Z');
    // After midnight, before the opening: the same morning.
    expect(due(office(), '2026-03-25T04:30:00Z', 15 * MINUTE)).toBe('2026-03-25T08:15:00.000Z');
  });

  test('near closing: the minutes before it count, the rest runs from the next opening (17:55 → 09:10)', () => {
    expect(due(office(), '2026-03-24T16:55:00Z', 15 * MINUTE)).toBe('2026-03-25T08:10:00.000Z');
  });

  test('a wait that runs out as the hours close is due at the next opening, never while closed', () => {
    expect(due(office(), '2026-03-24T16:45:00Z', 15 * MINUTE)).toBe('2026-03-25T08:00:00.000Z');
  });

  test('days off are skipped: Friday evening waits for Monday', () => {
    // Fri 20 March 2026, 19:00 CET → Mon 23 March 09:15 CET.
    expect(due(office(), '2026-03-20T18:00:00Z', 15 * MINUTE)).toBe('2026-03-23T08:15:00.000Z');
    // Saturday noon.
    expect(due(office(), '2026-03-21T11:00:00Z', 30 * MINUTE)).toBe('2026-03-23T08:30:00.000Z');
  });

  test('a wait of days spends each working day in turn', () => {
    // From Mon 09:00: 9 hours on Monday, 9 on Tuesday, 2 on Wednesday → Wed 11:00.
    expect(due(office(), '2026-03-23T08:00:00Z', 20 * HOUR)).toBe('2026-03-25T10:00:00.000Z');
    // The longest reminder (7 days) from Friday 17:00: 1 hour on Friday, 18 whole working days, 5 hours of the next
    // (Thu 16 April, 14:00 CEST).
    expect(due(office(), '2026-03-20T16:00:00Z', 7 * 24 * HOUR)).toBe('2026-04-16T12:00:00.000Z');
  });

  test('hours that cross midnight count on both sides of it', () => {
    const night = hours('22:00', '06:00', PARIS, null);
    // 05:30 → 30 minutes left before 06:00, the other 30 from 22:00.
    expect(due(night, '2026-03-24T04:30:00Z', HOUR)).toBe('2026-03-24T21:30:00.000Z');
  });

  test('the weekend the clocks go forward: Friday 17:55 CET is due Monday 09:10 CEST', () => {
    // Paris moves to summer time on Sunday 29 March 2026.
    expect(due(office(), '2026-03-27T16:55:00Z', 15 * MINUTE)).toBe('2026-03-30T07:10:00.000Z');
    // New York on Sunday 8 March 2026.
    expect(due(hours('09:00', '18:00', NY), '2026-03-06T22:55:00Z', 15 * MINUTE)).toBe('2026-03-09T13:10:00.000Z');
  });

  test('the weekend the clocks go back: Friday 17:55 CEST is due Monday 09:10 CET', () => {
    // Paris moves to winter time on Sunday 25 October 2026.
    expect(due(office(), '2026-10-23T15:55:00Z', 15 * MINUTE)).toBe('2026-10-26T08:10:00.000Z');
  });

  test('hours open across a clock change count the time that really passes', () => {
    const early = hours('01:00', '05:00', PARIS, null);
    // 29 March: open from 01:00 CET (00:00Z); 02:00 becomes 03:00 CEST. 2h30 of real time → 04:30 CEST (02:30Z),
    // where counting the clock's hours would say 03:30.
    expect(due(early, '2026-03-29T00:00:00Z', 2.5 * HOUR)).toBe('2026-03-29T02:30:00.000Z');
    // 25 October: open from 01:00 CEST (23:00Z); 03:00 becomes 02:00 CET, the hour lived twice counts twice.
    expect(due(early, '2026-10-24T23:00:00Z', 4 * HOUR)).toBe('2026-10-25T03:00:00.000Z');
  });

  test('property: the answer is open, and at least the wait after the start', () => {
    const zones = [PARIS, NY, 'Australia/Sydney', 'Asia/Kolkata', 'America/Santiago', 'UTC'];
    const time = fc
      .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
      .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
    const days = fc.option(fc.subarray(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], { minLength: 1 }), {
      nil: null,
    });
    const from = fc.integer({ min: at('2026-01-01T00:00:00Z'), max: at('2027-01-01T00:00:00Z') });
    const wait = fc.integer({ min: 1, max: 3 * 24 * 60 }).map((m) => m * MINUTE);
    fc.assert(
      fc.property(fc.constantFrom(...zones), time, time, days, from, wait, (timezone, start, end, open, t, ms) => {
        fc.pre(start !== end);
        const window = w.parseSendingWindow({ start, end, timezone, days: open });
        const answer = b.afterBusinessTime(window, t, ms);
        expect(w.isOpen(window, answer)).toBe(true);
        expect(answer).toBeGreaterThanOrEqual(t + ms);
      }),
      { numRuns: 200 },
    );
  });
});

test('a wait longer than its hours hold in MAX_STRETCHES openings is due at the next one, not centuries later', () => {
  // A minute a week (Mondays 00:00–00:01 in Paris) under a wait of 7 days: 10,080 Mondays, counted one by one.
  const minuteAWeek = hours('00:00', '00:01', PARIS, ['mon']);
  const from = at('2026-12-07T10:00:00Z');
  const answer = b.afterBusinessTime(minuteAWeek, from, 7 * 24 * HOUR);
  expect(w.isOpen(minuteAWeek, answer)).toBe(true);
  // The 63rd Monday after the first one counted, in the winter's CET.
  expect(iso(answer)).toBe(iso(at('2026-12-13T23:00:00Z') + b.MAX_STRETCHES * 7 * 24 * HOUR));
  // Under hours that hold the wait, the cap changes nothing: 168 hours of 09:00–18:00 on weekdays end on the 19th.
  expect(due(hours('09:00', '18:00'), '2026-12-07T08:00:00Z', 7 * 24 * HOUR)).toBe('2026-12-31T14:00:00.000Z');
});

describe('nextClosing', () => {
  test('an open window closes at its end; a closed one answers the instant asked', () => {
    const office = hours('09:00', '18:00');
    expect(iso(w.nextClosing(office, at('2026-03-24T09:00:00Z')))).toBe('2026-03-24T17:00:00.000Z');
    expect(iso(w.nextClosing(office, at('2026-03-24T20:00:00Z')))).toBe('2026-03-24T20:00:00.000Z');
  });

  test('an end the clocks skip closes when they jump past it', () => {
    // New York, 8 March 2026: 02:00 EST becomes 03:00 EDT, so "02:30" never comes; the window closes at the jump.
    const night = hours('23:00', '02:30', NY, null);
    expect(iso(w.nextClosing(night, at('2026-03-08T05:00:00Z')))).toBe('2026-03-08T07:00:00.000Z');
  });
});

describe('outOfHours', () => {
  test('never without hours; outside them, not within', () => {
    expect(b.outOfHours(null, at('2026-03-24T23:00:00Z'))).toBe(false);
    expect(b.outOfHours(hours('09:00', '18:00'), at('2026-03-24T23:00:00Z'))).toBe(true);
    expect(b.outOfHours(hours('09:00', '18:00'), at('2026-03-24T10:00:00Z'))).toBe(false);
  });
});

describe('business hours are checked as a sending window, their refusals naming businessHours', () => {
  test.each([
    [{ start: '9:00', end: '18:00', timezone: PARIS }, 'businessHours.start'],
    [{ start: '09:00', end: '25:00', timezone: PARIS }, 'businessHours.end'],
    [{ start: '09:00', end: '09:00', timezone: PARIS }, 'businessHours.end'],
    [{ start: '09:00', end: '18:00', timezone: 'Paris' }, 'businessHours.timezone'],
    [{ start: '09:00', end: '18:00', timezone: '+01:00' }, 'businessHours.timezone'],
    [{ start: '09:00', end: '18:00', timezone: PARIS, days: ['monday'] }, 'businessHours.days'],
  ])('%j', (input, field) => {
    expect(() => w.parseSendingWindow(input, undefined, w.BUSINESS_HOURS)).toThrow(
      expect.objectContaining({
        status: 400,
        code: 'INVALID_BUSINESS_HOURS',
        fields: [expect.objectContaining({ field })],
      }),
    );
  });
});
