import { FakeClock } from '@ostore/shared/clock/testing';
import { JsonLogger } from '@ostore/shared/observability';
import { IndexRechecks } from './index-rechecks';

describe(IndexRechecks.name, () => {
  const FLIGHT_MS = 30;
  let clock: FakeClock;
  let calls: { key: string; floor: number }[];
  let sut: IndexRechecks;

  beforeEach(() => {
    clock = new FakeClock(1_000_000);
    calls = [];
    sut = new IndexRechecks(
      clock,
      FLIGHT_MS,
      async (bucketId, parent, name, floor) => {
        calls.push({ key: `${bucketId}/${parent}${name}`, floor });
      },
      new JsonLogger('test', 'fatal').forContext('test'),
    );
  });

  it('lets writers send within half the flight time before they must check the index themselves', () => {
    expect(sut.sendBoundMicros).toBe((FLIGHT_MS / 2) * 1000);
  });

  it('re-checks a recent repair once, after it, with the repair as the floor', async () => {
    const at = clock.nowMs() * 1000;
    sut.afterRepair('b', 'd/', 'k', at);
    expect(calls).toEqual([]);
    await sut.settled();
    expect(calls).toEqual([{ key: 'b/d/k', floor: at }]);
  });

  it('keeps one re-check per key, with the latest repair', async () => {
    const at = clock.nowMs() * 1000;
    sut.afterRepair('b', 'd/', 'k', at);
    sut.afterRepair('b', 'd/', 'k', at + 5000);
    sut.afterRepair('b', 'd/', 'other', at);
    await sut.settled();
    expect(calls).toEqual(
      expect.arrayContaining([
        { key: 'b/d/k', floor: at + 5000 },
        { key: 'b/d/other', floor: at },
      ]),
    );
    expect(calls).toHaveLength(2);
  });

  it('skips a repair below every mutation that can still be in flight', async () => {
    sut.afterRepair('b', 'd/', 'k', (clock.nowMs() - FLIGHT_MS - 1) * 1000);
    await sut.settled();
    expect(calls).toEqual([]);
  });

  it('runs what is pending at once when stopped', async () => {
    const slow = new IndexRechecks(clock, 3_600_000, async (b, p, n, floor) => void calls.push({ key: `${b}/${p}${n}`, floor }), new JsonLogger('test', 'fatal').forContext('test'));
    slow.afterRepair('b', '', 'k', clock.nowMs() * 1000);
    await slow.stop();
    expect(calls).toEqual([{ key: 'b/k', floor: clock.nowMs() * 1000 }]);
  });
});
