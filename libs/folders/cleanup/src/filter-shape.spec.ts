import { estimatedElements, estimatedFpr, fillRatio, isSaturated, MAX_FILTER_BITS, nextCapacity, shapeFor } from './filter-shape';

describe(shapeFor.name, () => {
  it('sizes the optimal filter: 1,000,000 directories at 1 % take about 9.6 bits each and 7 hashes', () => {
    const sut = shapeFor(1_000_000, 0.01);
    expect(sut.bits % 32).toBe(0);
    expect(sut.bits).toBeGreaterThanOrEqual(9_585_058);
    expect(sut.bits).toBeLessThan(9_585_058 + 32);
    expect(sut.hashes).toBe(7);
  });

  it('grows with the count and with a smaller rate', () => {
    expect(shapeFor(2000, 0.01).bits).toBeGreaterThan(shapeFor(1000, 0.01).bits);
    expect(shapeFor(1000, 0.001).bits).toBeGreaterThan(shapeFor(1000, 0.01).bits);
  });

  it('refuses what the package cannot hold and nonsense', () => {
    expect(() => shapeFor(1e10, 0.01)).toThrow(RangeError);
    expect(shapeFor(4e8, 0.01).bits).toBeLessThanOrEqual(MAX_FILTER_BITS);
    expect(() => shapeFor(0, 0.01)).toThrow(RangeError);
    expect(() => shapeFor(10, 1)).toThrow(RangeError);
  });
});

describe('filter health', () => {
  const shape = { bits: 1000, hashes: 4 };

  it('fill ratio, estimated rate and elements', () => {
    expect(fillRatio(250, shape)).toBe(0.25);
    expect(estimatedFpr(0.5, shape)).toBeCloseTo(0.0625);
    expect(estimatedElements(0, shape)).toBe(0);
    expect(estimatedElements(0.5, shape)).toBeCloseTo((1000 / 4) * Math.LN2);
    expect(estimatedElements(1, shape)).toBe(Infinity);
  });

  it('a filter at capacity is half full and answers with the configured rate', () => {
    const s = shapeFor(10_000, 0.01);
    expect(estimatedFpr(0.5, s)).toBeCloseTo(0.0078, 3);
    expect(isSaturated(0.5, s, { fpr: 0.01, saturationFactor: 2 })).toBe(false);
    expect(isSaturated(0.7, s, { fpr: 0.01, saturationFactor: 2 })).toBe(true);
  });
});

describe(nextCapacity.name, () => {
  const s = { fpr: 0.01, saturationFactor: 2, headroom: 1.5, minDirectories: 1000 };

  it('never below the minimum', () => {
    expect(nextCapacity(s, 0)).toBe(1000);
  });

  it('the directories counted or held, whichever is more, with headroom', () => {
    expect(nextCapacity(s, 10_000)).toBe(15_000);
    expect(nextCapacity(s, 10_000, { estimatedElements: 20_000, capacity: 12_000 })).toBe(30_000);
  });

  it('a filter with every bit set grows fourfold', () => {
    expect(nextCapacity(s, 0, { estimatedElements: Infinity, capacity: 5000 })).toBe(30_000);
  });
});
