import path from 'node:path';
import { gatewayModule } from '../helpers/gateway-modules';

type Durations = typeof import('../../gateway/src/domain/durations.js', { with: { 'resolution-mode': 'import' } });

// The gateway is ESM: load the compiled module, as the other gateway tests do.
let d: Durations;
beforeAll(async () => {
  d = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/domain/durations.js'))) as Durations;
});

const rejected = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err as { status: number; code: string; message: string };
  }
  throw new Error('expected a rejection');
};

describe('parseDuration', () => {
  test.each([
    ['30s', 30_000],
    ['15m', 900_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['1h30m', 5_400_000],
    ['1d12h', 129_600_000],
    ['1d2h3m4s', 93_784_000],
    ['90m', 5_400_000],
    [' 15m ', 900_000],
    ['1s', 1000],
    ['30d', 30 * 86_400_000],
    ['720h', 30 * 86_400_000],
  ])('%j is %d ms', (text, ms) => {
    expect(d.parseDuration(text)).toBe(ms);
  });

  test.each([
    '',
    '   ',
    '15',
    'm',
    '15 m',
    '15M',
    '1.5h',
    '-5m',
    '+5m',
    '1m1h',
    '1h1h',
    '15min',
    '1w',
    '0x10s',
    '1e3s',
    '15m junk',
  ])('%j is not a duration', (text) => {
    const err = rejected(() => d.parseDuration(text, { field: 'delay' }));
    expect(err).toMatchObject({ status: 400, code: 'INVALID_DURATION' });
    expect(err.message).toMatch(/^delay must be a duration such as "15m"/);
  });

  test('a value that is not a string names the field and the expected shape', () => {
    expect(rejected(() => d.parseDuration(15))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^duration must be a duration such as "15m"/),
    });
    expect(rejected(() => d.parseDuration(null, { field: 'after' })).message).toMatch(/^after must be/);
  });

  test('zero, more than 30 days and numbers beyond precision are out of bounds', () => {
    for (const text of ['0s', '0m', '0d0h', '31d', '30d1s', '721h', '99999999999999999999d']) {
      const err = rejected(() => d.parseDuration(text, { field: 'delay' }));
      expect(err).toMatchObject({ status: 400, code: 'INVALID_DURATION' });
      expect(err.message).toMatch(/^delay must be between 1s and 30d/);
    }
    expect(d.DURATION_MIN_MS).toBe(1000);
    expect(d.DURATION_MAX_MS).toBe(30 * 86_400_000);
  });

  test('callers can narrow or widen the bounds', () => {
    expect(d.parseDuration('0s', { min: 0 })).toBe(0);
    expect(rejected(() => d.parseDuration('30s', { field: 'after', min: 60_000 })).message).toMatch(
      /^after must be between 1m and 30d/,
    );
    expect(rejected(() => d.parseDuration('3h', { max: 2 * 3_600_000 })).message).toMatch(/between 1s and 2h/);
  });

  test('an echoed input is cut short', () => {
    expect(rejected(() => d.parseDuration('x'.repeat(10_000))).message.length).toBeLessThan(200);
  });
});

describe('formatDuration', () => {
  test.each([
    [30_000, '30s'],
    [900_000, '15m'],
    [5_400_000, '1h30m'],
    [86_400_000, '1d'],
    [93_784_000, '1d2h3m4s'],
    [0, '0s'],
    [1500, '1s'],
  ])('%d ms is %j', (ms, text) => {
    expect(d.formatDuration(ms)).toBe(text);
  });

  test('the canonical string parses back to the same duration', () => {
    for (const text of ['90m', '36h', '3600s', '1d0h5m', '29d23h59m59s']) {
      const ms = d.parseDuration(text);
      expect(d.parseDuration(d.formatDuration(ms))).toBe(ms);
    }
  });
});

describe('rates', () => {
  test.each([
    ['30/m', 30, 60_000, 30],
    ['5/s', 5, 1000, 300],
    ['100/h', 100, 3_600_000, 100 / 60],
    ['1000/d', 1000, 86_400_000, 1000 / 1440],
    [' 1/s ', 1, 1000, 60],
    ['6000/m', 6000, 60_000, 6000],
  ])('%j is %d per %d ms (%d a minute)', (text, count, perMs, perMinute) => {
    const rate = d.parseRate(text);
    expect(rate).toEqual({ count, perMs });
    expect(d.perMinute(rate)).toBeCloseTo(perMinute, 10);
    expect(d.formatRate(rate)).toBe(text.trim());
  });

  test.each(['30', '30/', '/m', '30/min', '30 / m', '30/M', '1.5/m', '-1/m', '30/w', 'thirty/m', '30/m/s'])(
    '%j is not a rate',
    (text) => {
      const err = rejected(() => d.parseRate(text, 'sendRate'));
      expect(err).toMatchObject({ status: 400, code: 'INVALID_RATE' });
      expect(err.message).toMatch(/^sendRate must be a rate such as "30\/m"/);
    },
  );

  test('zero and rates faster than 6000 a minute are refused', () => {
    for (const text of ['0/m', '101/s', '6001/m', '99999999999999999999/d']) {
      expect(rejected(() => d.parseRate(text, 'sendRate'))).toMatchObject({
        status: 400,
        message: expect.stringMatching(/^sendRate must be at least 1\/d and at most 6000\/m/),
      });
    }
    expect(d.parseRate('100/s')).toEqual({ count: 100, perMs: 1000 });
    expect(rejected(() => d.parseRate(30)).message).toMatch(/^rate must be a rate/);
  });

  test('formatting a rate with an unknown period is a programming error', () => {
    expect(() => d.formatRate({ count: 1, perMs: 7 })).toThrow(RangeError);
  });
});
