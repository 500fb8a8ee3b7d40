import {
  ageInDays,
  AWS_TIMING,
  ceilToMidnightUtc,
  DAY_MS,
  debugTiming,
  dueAfterDays,
  floorToMidnightUtc,
  lifecycleTiming,
  MAX_INSTANT_MS,
  toMs,
} from './timing';

const at = (iso: string) => Date.parse(iso);

describe(dueAfterDays.name, () => {
  const sut = dueAfterDays;

  describe('AWS timing', () => {
    it('adds the days to the creation time and rounds up to the next midnight UTC (AWS example)', () => {
      expect(sut(at('2014-01-15T10:30:00Z'), 3, AWS_TIMING)).toBe(at('2014-01-19T00:00:00Z'));
    });

    it('makes Days=1 due at the first midnight at least 24 hours after creation', () => {
      expect(sut(at('2014-01-02T00:05:00Z'), 1, AWS_TIMING)).toBe(at('2014-01-04T00:00:00Z'));
      expect(sut(at('2026-03-10T23:59:59Z'), 1, AWS_TIMING)).toBe(at('2026-03-12T00:00:00Z'));
    });

    it('keeps a sum that falls exactly on midnight', () => {
      expect(sut(at('2014-01-02T00:00:00Z'), 1, AWS_TIMING)).toBe(at('2014-01-03T00:00:00Z'));
    });

    it('makes Days=0 due at the next midnight', () => {
      expect(sut(at('2026-05-05T08:00:00Z'), 0, AWS_TIMING)).toBe(at('2026-05-06T00:00:00Z'));
      expect(sut(at('2026-05-05T00:00:00Z'), 0, AWS_TIMING)).toBe(at('2026-05-05T00:00:00Z'));
    });

    it('clamps a due time beyond what a Date holds', () => {
      expect(sut(at('2026-01-01T00:00:00Z'), 2_147_483_647, AWS_TIMING)).toBe(MAX_INSTANT_MS);
      expect(new Date(sut(0, 2_147_483_647, AWS_TIMING)).getTime()).toBe(MAX_INSTANT_MS);
    });
  });

  describe('debug timing', () => {
    it('counts plain elapsed days of dayMs, without rounding', () => {
      const timing = debugTiming(10_000);
      const start = at('2026-01-01T12:34:56.789Z');
      expect(sut(start, 3, timing)).toBe(start + 30_000);
      expect(sut(start, 0, timing)).toBe(start);
    });
  });
});

describe(ageInDays.name, () => {
  const sut = ageInDays;

  it('counts AWS days as the number of due thresholds passed', () => {
    const created = at('2014-01-15T10:30:00Z');
    expect(sut(created, at('2014-01-18T23:59:59Z'), AWS_TIMING)).toBe(2);
    expect(sut(created, at('2014-01-19T00:00:00Z'), AWS_TIMING)).toBe(3);
    expect(sut(created, created - 1, AWS_TIMING)).toBe(0);
  });

  it('counts debug days as floor((now - start) / dayMs)', () => {
    const timing = debugTiming(5_000);
    expect(sut(1_000, 1_000 + 14_999, timing)).toBe(2);
    expect(sut(1_000, 1_000 + 15_000, timing)).toBe(3);
  });

  it('agrees with dueAfterDays: age >= d (d ≥ 1) exactly when the d-day action is due', () => {
    const starts = [at('2026-02-01T00:00:00Z'), at('2026-02-01T00:00:00.001Z'), at('2026-02-01T17:45:00Z')];
    const offsets = [0, 1, DAY_MS - 1, DAY_MS, DAY_MS + 1, 2.5 * DAY_MS, 7 * DAY_MS + 3];
    for (const timing of [AWS_TIMING, debugTiming(DAY_MS / 3)]) {
      for (const start of starts) {
        for (const offset of offsets) {
          const now = start + offset;
          for (let d = 1; d <= 8; d++) {
            expect(sut(start, now, timing) >= d).toBe(dueAfterDays(start, d, timing) <= now);
          }
        }
      }
    }
  });
});

describe(lifecycleTiming.name, () => {
  const sut = lifecycleTiming;

  it('is AWS timing unless a positive debug day length is configured', () => {
    expect(sut()).toEqual(AWS_TIMING);
    expect(sut(0)).toEqual(AWS_TIMING);
    expect(sut(5)).toEqual({ kind: 'debug', dayMs: 5000 });
  });

  it('refuses a debug day that is not positive', () => {
    expect(() => debugTiming(0)).toThrow(RangeError);
    expect(() => debugTiming(Number.NaN)).toThrow(RangeError);
  });
});

describe(ceilToMidnightUtc.name, () => {
  it('rounds to whole UTC days in both directions, before 1970 too', () => {
    expect(ceilToMidnightUtc(-1)).toBe(0);
    expect(floorToMidnightUtc(-1)).toBe(-DAY_MS);
    expect(floorToMidnightUtc(at('2026-07-07T13:00:00Z'))).toBe(at('2026-07-07T00:00:00Z'));
    expect(toMs(new Date(42))).toBe(42);
  });
});
