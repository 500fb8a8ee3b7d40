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
});

describe(SystemClock.name, () => {
  it('follows the wall clock', () => {
    const before = Date.now();
    const got = new SystemClock().nowMs();
    expect(got).toBeGreaterThanOrEqual(before);
    expect(got).toBeLessThanOrEqual(Date.now());
  });
});
