import path from 'node:path';
import fc from 'fast-check';
import { gatewayModule } from '../helpers/gateway-modules';

type Windows = typeof import('../../gateway/src/domain/sending-window.js', { with: { 'resolution-mode': 'import' } });
type Window = import('../../gateway/src/api-contract.js', { with: { 'resolution-mode': 'import' } }).SendingWindow;

let w: Windows;
beforeAll(async () => {
  w = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/domain/sending-window.js'))) as Windows;
});

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const NY = 'America/New_York';
const win = (start: string, end: string, timezone = NY, days?: string[]): Window =>
  w.parseSendingWindow({ start, end, timezone, days });
const MON_FRI = ['mon', 'tue', 'wed', 'thu', 'fri'];
const next = (window: Window, when: string) => iso(w.nextOpening(window, at(when)));

describe('validation', () => {
  test('a valid window comes back normalized', () => {
    expect(w.parseSendingWindow({ start: ' 08:00', end: '21:00 ', timezone: 'America/New_York' })).toEqual({
      start: '08:00',
      end: '21:00',
      timezone: NY,
      days: null,
    });
    expect(w.parseSendingWindow({ start: '00:00', end: '23:59', timezone: 'utc' }).timezone).toBe('UTC');
  });

  test.each([
    [{ start: '8:00', end: '21:00', timezone: NY }, /sendingWindow\.start must be a time "HH:MM"/],
    [{ start: '24:00', end: '21:00', timezone: NY }, /sendingWindow\.start must be/],
    [{ start: '08:00', end: '21:60', timezone: NY }, /sendingWindow\.end must be/],
    [{ start: '08:00', end: '2100', timezone: NY }, /sendingWindow\.end must be/],
    [{ start: '08:00', end: '9pm', timezone: NY }, /sendingWindow\.end must be/],
    [{ start: 800, end: '21:00', timezone: NY }, /sendingWindow\.start must be/],
    [{ end: '21:00', timezone: NY }, /sendingWindow\.start must be/],
    [{ start: '08:00', end: '08:00', timezone: NY }, /start and sendingWindow\.end must differ/],
    [
      { start: '08:00', end: '21:00', timezone: 'Mars/Olympus_Mons' },
      /sendingWindow\.timezone must be an IANA time zone/,
    ],
    [{ start: '08:00', end: '21:00', timezone: '' }, /timezone must be/],
    [{ start: '08:00', end: '21:00' }, /timezone must be/],
    [{ start: '08:00', end: '21:00', timezone: 5 }, /timezone must be/],
    [{ start: '08:00', end: '21:00', timezone: NY, days: [] }, /sendingWindow\.days must name at least one day/],
    [
      { start: '08:00', end: '21:00', timezone: NY, days: ['Mon'] },
      /sendingWindow\.days must name days .*"Mon" is none/,
    ],
    [{ start: '08:00', end: '21:00', timezone: NY, days: ['monday'] }, /sendingWindow\.days must name days by/],
    [{ start: '08:00', end: '21:00', timezone: NY, days: [1] }, /sendingWindow\.days must name days by/],
    [{ start: '08:00', end: '21:00', timezone: NY, days: ['sat', 'sun', 'sat'] }, /"sat" is there twice/],
    [{ start: '08:00', end: '21:00', timezone: NY, days: 'mon' }, /sendingWindow\.days must be a list/],
    ['08:00-21:00', /sendingWindow must be an object/],
    [null, /sendingWindow must be an object/],
  ])('%j is refused', (input, message) => {
    expect(() => w.parseSendingWindow(input)).toThrow(message);
    try {
      w.parseSendingWindow(input);
    } catch (err) {
      expect(err).toMatchObject({ status: 400, code: 'INVALID_SENDING_WINDOW' });
      if (/days/.test(String(message)))
        expect(err).toMatchObject({ fields: [{ field: 'sendingWindow.days', code: 'INVALID_SENDING_WINDOW' }] });
    }
  });
});

test("a window's days come back once each, in the week's order, Monday first", () => {
  expect(win('08:00', '21:00', NY, [' sun', 'fri', 'mon', 'wed ']).days).toEqual(['mon', 'wed', 'fri', 'sun']);
  expect(w.parseSendingWindow({ start: '08:00', end: '21:00', timezone: NY, days: null }).days).toBeNull();
});

describe('nextOpening on the days a window names', () => {
  const weekdays = () => win('08:00', '21:00', NY, MON_FRI);

  test('Friday evening and the weekend wait for Monday at the start', () => {
    expect(next(weekdays(), '2025-06-14T02:00:00Z')).toBe('2025-06-16T12:00:00.000Z'); // Fri 22:00 EDT → Mon 08:00
    expect(next(weekdays(), '2025-06-14T16:00:00Z')).toBe('2025-06-16T12:00:00.000Z'); // Sat 12:00
    expect(next(weekdays(), '2025-06-16T03:59:59.999Z')).toBe('2025-06-16T12:00:00.000Z'); // Sun 23:59:59.999
    expect(w.isOpen(weekdays(), at('2025-06-13T20:00:00Z'))).toBe(true); // Fri 16:00
    expect(w.isOpen(weekdays(), at('2025-06-14T16:00:00Z'))).toBe(false); // Sat 12:00
    expect(next(weekdays(), '2025-06-12T02:00:00Z')).toBe('2025-06-12T12:00:00.000Z'); // Wed 22:00 → Thu 08:00
  });

  test("the days are the zone's: Monday 08:00 in Tokyo is Sunday 23:00 UTC", () => {
    const tokyo = win('08:00', '21:00', 'Asia/Tokyo', MON_FRI);
    expect(next(tokyo, '2025-06-14T12:00:00Z')).toBe('2025-06-15T23:00:00.000Z'); // Sat 21:00 JST → Mon 08:00 JST
    expect(w.isOpen(tokyo, at('2025-06-15T23:30:00Z'))).toBe(true); // a Sunday in UTC, Monday in Tokyo
  });

  test('across the weekend the clocks spring forward, Monday opens at 08:00 EDT (New York, March 2027)', () => {
    // 2027-03-14, a Sunday: 02:00 EST becomes 03:00 EDT.
    expect(next(weekdays(), '2027-03-13T03:00:00Z')).toBe('2027-03-15T12:00:00.000Z'); // Fri 22:00 EST → Mon 08:00 EDT
    expect(next(weekdays(), '2027-03-12T03:00:00Z')).toBe('2027-03-12T13:00:00.000Z'); // Thu 22:00 → Fri 08:00 EST
    expect(next(win('08:00', '21:00', NY, ['sun']), '2027-03-13T03:00:00Z')).toBe('2027-03-14T12:00:00.000Z');
  });

  test('a window open on Sundays alone waits the week for the next one', () => {
    const sundays = win('08:00', '21:00', NY, ['sun']);
    expect(next(sundays, '2025-06-16T01:00:00Z')).toBe('2025-06-22T12:00:00.000Z'); // Sun 21:00 → next Sun 08:00
    expect(next(sundays, '2025-06-16T04:00:00Z')).toBe('2025-06-22T12:00:00.000Z'); // Mon 00:00
    expect(next(sundays, '2025-06-15T11:00:00Z')).toBe('2025-06-15T12:00:00.000Z'); // Sun 07:00 → 08:00
    // A Sunday whose clocks skip the whole window opens none: the next Sunday does.
    expect(next(win('02:10', '02:40', NY, ['sun']), '2027-03-13T12:00:00Z')).toBe('2027-03-21T06:10:00.000Z');
  });

  test('a window that crosses midnight opens on its days and closes the next morning', () => {
    const fridayNight = win('21:00', '06:00', NY, ['fri']);
    expect(w.isOpen(fridayNight, at('2025-06-14T01:00:00Z'))).toBe(true); // Fri 21:00
    expect(w.isOpen(fridayNight, at('2025-06-14T09:59:00Z'))).toBe(true); // Sat 05:59
    expect(w.isOpen(fridayNight, at('2025-06-13T09:00:00Z'))).toBe(false); // Fri 05:00: Thursday's night
    expect(next(fridayNight, '2025-06-14T10:00:00Z')).toBe('2025-06-21T01:00:00.000Z'); // Sat 06:00 → next Fri 21:00
  });
});

describe('nextOpening', () => {
  test('inside the window it is the instant itself, to the millisecond', () => {
    const ms = at('2025-06-10T13:00:00.123Z'); // 09:00:00.123 EDT
    expect(w.nextOpening(win('08:00', '21:00'), ms)).toBe(ms);
    expect(w.nextOpening(win('08:00', '21:00'), at('2025-06-10T12:00:00.000Z'))).toBe(at('2025-06-10T12:00:00.000Z')); // start is in
  });

  test('before the start it opens the same day; from the end on, the next day', () => {
    const day = win('08:00', '21:00');
    expect(next(day, '2025-06-10T11:59:59.999Z')).toBe('2025-06-10T12:00:00.000Z');
    expect(next(day, '2025-06-11T01:00:00.000Z')).toBe('2025-06-11T12:00:00.000Z'); // 21:00 EDT: end is out
    expect(next(day, '2025-06-11T03:59:00.000Z')).toBe('2025-06-11T12:00:00.000Z'); // 23:59 EDT
    expect(next(day, '2025-06-11T04:00:00.000Z')).toBe('2025-06-11T12:00:00.000Z'); // local midnight
  });

  test('New York spring forward: the day after the clocks change opens at 08:00 EDT', () => {
    expect(next(win('08:00', '21:00'), '2025-03-09T03:00:00Z')).toBe('2025-03-09T12:00:00.000Z'); // Sat 22:00 EST → Sun 08:00 EDT
    expect(next(win('08:00', '21:00'), '2025-03-08T02:00:00Z')).toBe('2025-03-08T13:00:00.000Z'); // a day before: 08:00 EST
  });

  test('New York spring forward: a start the clocks skip opens at the first instant after it', () => {
    // 02:00 EST becomes 03:00 EDT at 07:00Z: 02:30 does not exist that night.
    expect(next(win('02:30', '05:00'), '2025-03-09T06:00:00Z')).toBe('2025-03-09T07:00:00.000Z');
    expect(next(win('02:00', '05:00'), '2025-03-09T06:00:00Z')).toBe('2025-03-09T07:00:00.000Z');
    // A window wholly inside the skipped hour does not open that night; it does the next.
    expect(next(win('02:10', '02:40'), '2025-03-09T06:00:00Z')).toBe('2025-03-10T06:10:00.000Z');
    expect(w.isOpen(win('02:30', '05:00'), at('2025-03-09T06:59:59.999Z'))).toBe(false);
  });

  test('New York fall back: 08:00 EST, and a twice-lived start opens at its first occurrence and again at its second', () => {
    expect(next(win('08:00', '21:00'), '2025-11-02T02:00:00Z')).toBe('2025-11-02T13:00:00.000Z'); // Sat 22:00 EDT → Sun 08:00 EST
    // 02:00 EDT becomes 01:00 EST at 06:00Z: 01:00-01:59 happens twice.
    const small = win('01:30', '01:40');
    expect(next(small, '2025-11-02T04:00:00Z')).toBe('2025-11-02T05:30:00.000Z'); // 01:30 EDT
    expect(next(small, '2025-11-02T05:45:00Z')).toBe('2025-11-02T06:30:00.000Z'); // after it: 01:30 EST
    expect(next(small, '2025-11-02T06:45:00Z')).toBe('2025-11-03T06:30:00.000Z'); // after both: the next day
  });

  test('New York fall back: clocks turned back into the window open it at the change', () => {
    // 00:30-01:30: at 01:45 EDT it is closed; at 06:00Z the clocks read 01:00 EST, inside again.
    expect(next(win('00:30', '01:30'), '2025-11-02T05:45:00Z')).toBe('2025-11-02T06:00:00.000Z');
  });

  test('a window that crosses midnight', () => {
    const night = win('21:00', '06:00');
    expect(next(night, '2025-06-10T16:00:00Z')).toBe('2025-06-11T01:00:00.000Z'); // 12:00 EDT → 21:00 EDT
    expect(w.nextOpening(night, at('2025-06-11T03:00:00Z'))).toBe(at('2025-06-11T03:00:00Z')); // 23:00
    expect(w.nextOpening(night, at('2025-06-11T09:59:00Z'))).toBe(at('2025-06-11T09:59:00Z')); // 05:59
    expect(next(night, '2025-06-11T10:00:00Z')).toBe('2025-06-12T01:00:00.000Z'); // 06:00 is out
    expect(w.isOpen(win('22:00', '00:00'), at('2025-06-11T03:59:59Z'))).toBe(true); // 23:59:59
    expect(w.isOpen(win('22:00', '00:00'), at('2025-06-11T04:00:00Z'))).toBe(false); // midnight
  });

  test('Asia/Kolkata, half an hour off UTC', () => {
    const kolkata = win('09:00', '18:00', 'Asia/Kolkata');
    expect(next(kolkata, '2025-06-10T03:00:00Z')).toBe('2025-06-10T03:30:00.000Z'); // 08:30 IST → 09:00 IST
    expect(w.nextOpening(kolkata, at('2025-06-10T03:30:00Z'))).toBe(at('2025-06-10T03:30:00Z'));
    expect(next(kolkata, '2025-06-10T12:30:00Z')).toBe('2025-06-11T03:30:00.000Z'); // 18:00 IST → tomorrow
    expect(next(kolkata, '2025-06-10T20:00:00Z')).toBe('2025-06-11T03:30:00.000Z'); // 01:30 IST, already the next day locally
  });

  test('Lord Howe Island, whose clocks move by half an hour', () => {
    // 2025-10-05 02:00 LHST (+10:30) becomes 02:30 (+11) at 2025-10-04T15:30Z.
    expect(next(win('02:15', '04:00', 'Australia/Lord_Howe'), '2025-10-04T15:00:00Z')).toBe('2025-10-04T15:30:00.000Z');
  });

  /** Every minute boundary between `from` and the answer is closed, and the answer is open. */
  const checkFirst = (window: Window, from: number) => {
    const opening = w.nextOpening(window, from);
    expect(opening).toBeGreaterThanOrEqual(from);
    expect(w.isOpen(window, opening)).toBe(true);
    if (opening === from) return;
    expect(w.isOpen(window, opening - 1)).toBe(false);
    for (let t = Math.ceil(from / 60_000) * 60_000; t < opening; t += 60_000) expect(w.isOpen(window, t)).toBe(false);
  };

  test('property: the answer is the first open instant, across zones, DST days, windows and their days', () => {
    const zones = [NY, 'Asia/Kolkata', 'Europe/London', 'Australia/Lord_Howe', 'America/Santiago', 'UTC'];
    const time = fc
      .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
      .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
    // Instants clustered around the 2025 DST changes of these zones, and elsewhere.
    const pivots = [
      '2025-03-09T07:00Z',
      '2025-11-02T06:00Z',
      '2025-03-30T01:00Z',
      '2025-10-26T01:00Z',
      '2025-04-05T15:00Z',
      '2025-10-04T15:30Z',
      '2025-04-06T03:00Z',
      '2025-09-07T04:00Z',
      '2025-06-10T00:00Z',
    ].map(at);
    const instant = fc
      .tuple(fc.constantFrom(...pivots), fc.integer({ min: -30 * 3_600_000, max: 30 * 3_600_000 }))
      .map(([p, d]) => p + d);
    const days = fc.option(fc.subarray(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], { minLength: 1 }), {
      freq: 1,
    });
    fc.assert(
      fc.property(fc.constantFrom(...zones), time, time, instant, days, (timezone, start, end, from, open) => {
        fc.pre(start !== end);
        checkFirst(win(start, end, timezone, open ?? undefined), from);
      }),
      { numRuns: 60, seed: 7 },
    );
  });
});

describe('zone names as clients spell them', () => {
  type Zones = typeof import('../../gateway/src/domain/time-zone.js', { with: { 'resolution-mode': 'import' } });

  test('a zone asked for in thousands of spellings holds one formatter, not one a spelling', async () => {
    const zones = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/domain/time-zone.js'))) as Zones;
    const name = 'america/argentina/buenos_aires';
    const letters = [...name].flatMap((c, i) => (/[a-z]/.test(c) ? [i] : []));
    // Each number's bits say which letters are capitals: a client asking the funnel in a new spelling every time.
    const spelling = (n: number) =>
      [...name]
        .map((c, i) => (letters.indexOf(i) >= 0 && (n >> letters.indexOf(i)) & 1 ? c.toUpperCase() : c))
        .join('');
    zones.knownZone('UTC');
    const before = zones.formattersHeld();
    for (let n = 0; n < 3000; n++) {
      const text = spelling(n);
      expect(zones.knownZone(text)).toBe(true);
      expect(w.parseSendingWindow({ start: '08:00', end: '20:00', timezone: text }).timezone).toBe(
        'America/Argentina/Buenos_Aires',
      );
    }
    expect(zones.formattersHeld() - before).toBeLessThanOrEqual(1);
  });
});
