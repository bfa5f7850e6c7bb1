import { DomainError } from '@cluster/platform';
import { describe, expect, it } from 'vitest';
import { formatHours, hoursToMinutes, parseWorkDate, resolveMinutes } from './duration.ts';
import { nextStatus } from './state-machine.ts';

describe('durations', () => {
  it('converts hours to minutes, rounding half up to the minute', () => {
    expect(hoursToMinutes('2.5')).toBe(150);
    expect(hoursToMinutes('1.67')).toBe(100);
    expect(hoursToMinutes('0.01')).toBe(1);
    expect(hoursToMinutes('24')).toBe(1440);
    expect(hoursToMinutes('0.025')).toBeUndefined();
    expect(hoursToMinutes('1e2')).toBeUndefined();
  });

  it('formats every minute count as hours with 2 decimals that round-trip to the same minutes', () => {
    expect(formatHours(150)).toBe('2.50');
    expect(formatHours(100)).toBe('1.67');
    expect(formatHours(1)).toBe('0.02');
    expect(formatHours(1440)).toBe('24.00');
    for (let m = 1; m <= 1440; m++) {
      expect(Number(formatHours(m))).toBeCloseTo(m / 60, 2);
      expect(hoursToMinutes(formatHours(m))).toBe(m);
    }
  });

  it('resolves minutes from minutes, hours or both', () => {
    expect(resolveMinutes({ minutes: 60 }, true)).toEqual({ minutes: 60, problems: [] });
    expect(resolveMinutes({ hours: '1' }, true)).toEqual({ minutes: 60, problems: [] });
    expect(resolveMinutes({}, false)).toEqual({ problems: [] });
    expect(resolveMinutes({}, true).problems[0].path).toBe('/minutes');
    expect(resolveMinutes({ minutes: 61, hours: '1' }, true).problems[0].path).toBe('/hours');
  });

  it('parses work dates, and date-times only when allowed, keeping the date as written', () => {
    expect(parseWorkDate('2028-02-29')).toBe('2028-02-29');
    expect(parseWorkDate('2026-02-29')).toBeUndefined();
    expect(parseWorkDate('2026-03-05T23:30:00-05:00')).toBeUndefined();
    expect(parseWorkDate('2026-03-05T23:30:00-05:00', true)).toBe('2026-03-05');
    expect(parseWorkDate('2026-03-05T00:30:00.123+0900', true)).toBe('2026-03-05');
    expect(parseWorkDate('2026-03-05T24:00:00Z', true)).toBeUndefined();
  });
});

describe('state machine', () => {
  it('throws a conflict carrying the current status on an illegal move', () => {
    expect(nextStatus('approve', 'submitted')).toBe('locked');
    expect(nextStatus('update', 'rejected')).toBe('rejected');
    expect(() => nextStatus('approve', 'draft')).toThrow(DomainError);
    try {
      nextStatus('approve', 'draft');
    } catch (err) {
      expect(err).toMatchObject({ reason: 'conflict', details: { currentStatus: 'draft' } });
    }
  });
});
