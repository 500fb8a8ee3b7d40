import { SystemClock } from './clock';
import { FakeClock } from './testing';

describe(FakeClock.name, () => {
  it('moves only when advanced or set', () => {
    const sut = new FakeClock(1000);
    expect(sut.nowMs()).toBe(1000);
    sut.advance(500);
    expect(sut.now().toISOString()).toBe(new Date(1500).toISOString());
    sut.set(new Date(0));
    expect(sut.nowMs()).toBe(0);
  });

  it('keeps its monotonic clock going forward when the wall clock is set back', () => {
    const sut = new FakeClock(1000);
    const start = sut.monotonicMs();
    sut.advance(500);
    expect(sut.monotonicMs() - start).toBe(500);
    sut.set(0);
    expect(sut.monotonicMs() - start).toBe(500);
    sut.set(250);
    expect(sut.monotonicMs() - start).toBe(750);
  });
});

describe(SystemClock.name, () => {
  it('follows the wall clock', () => {
    const before = Date.now();
    const got = new SystemClock().nowMs();
    expect(got).toBeGreaterThanOrEqual(before);
    expect(got).toBeLessThanOrEqual(Date.now());
  });

  it('has a monotonic clock that never goes back', () => {
    const sut = new SystemClock();
    const a = sut.monotonicMs();
    const b = sut.monotonicMs();
    expect(b).toBeGreaterThanOrEqual(a);
  });
});
