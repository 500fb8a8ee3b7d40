import { TokenBucket } from './token-bucket';

describe(TokenBucket.name, () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => (now = 0));

  it('lets a burst through, then paces to the rate', () => {
    const sut = new TokenBucket(10, 10, clock);
    expect(sut.reserve(10)).toBe(0);
    expect(sut.reserve(1)).toBeCloseTo(100);
    expect(sut.reserve(1)).toBeCloseTo(200);
  });

  it('refills with time, never above the burst', () => {
    const sut = new TokenBucket(10, 5, clock);
    expect(sut.reserve(5)).toBe(0);
    now = 10_000;
    expect(sut.reserve(5)).toBe(0);
    expect(sut.reserve(1)).toBeCloseTo(100);
  });

  it('allows a reservation larger than the burst, as debt', () => {
    const sut = new TokenBucket(100, 100, clock);
    expect(sut.reserve(300)).toBeCloseTo(2000);
    now = 2000;
    expect(sut.reserve(1)).toBeCloseTo(10);
  });

  it('neither refills nor drains when the clock steps back', () => {
    now = 5_000;
    const sut = new TokenBucket(10, 10, clock);
    expect(sut.reserve(10)).toBe(0);
    now = 1_000;
    expect(sut.reserve(1)).toBeCloseTo(100);
    now = 1_100;
    expect(sut.reserve(1)).toBeCloseTo(100);
  });

  it('rejects a non-positive rate', () => {
    expect(() => new TokenBucket(0)).toThrow(/positive number/);
    expect(() => new TokenBucket(-1)).toThrow(/positive number/);
  });
});
