import { GroupAssignment, usagePartitionOf } from '@ostore/queue/data-access';
import { FakeClock } from '@ostore/shared/clock/testing';
import { RouteInput, routeFor, routeMapOf, UsageRoutes } from './usage-routes';

const BUCKET = '1a2b3c4d-0000-4000-8000-00000000000a';
const P = usagePartitionOf(BUCKET, 3);
const A = 'http://stats-0:9103';
const B = 'http://stats-1:9103';

const group = (stable: boolean, members: [string, number[]][]): GroupAssignment => ({
  stable,
  partitionCount: 3,
  members: members.map(([data, partitions], i) => ({ memberId: `m${i}`, data, partitions })),
});
const others = [0, 1, 2].filter((p) => p !== P);

describe('routeFor', () => {
  const input = (over: Partial<RouteInput> = {}): RouteInput => ({
    bucketId: BUCKET,
    forwarded: false,
    enabled: true,
    ownsPartition: () => false,
    map: routeMapOf(
      group(true, [
        [A, others],
        [B, [P]],
      ]),
      0,
    ),
    selfUrl: A,
    suspended: () => false,
    ...over,
  });

  it("forwards to the member that reads the bucket's partition", () => {
    expect(routeFor(input())).toEqual({ kind: 'forward', url: B, partition: P });
  });

  it('answers locally whenever the owner is not known for sure', () => {
    expect(routeFor(input({ forwarded: true }))).toEqual({ kind: 'local', reason: 'forwarded' });
    expect(routeFor(input({ enabled: false }))).toEqual({ kind: 'local', reason: 'disabled' });
    expect(routeFor(input({ map: undefined }))).toEqual({ kind: 'local', reason: 'unknown' });
    expect(routeFor(input({ ownsPartition: (p) => p === P }))).toEqual({ kind: 'local', reason: 'owned' });
    expect(routeFor(input({ selfUrl: B }))).toEqual({ kind: 'local', reason: 'self' });
    expect(routeFor(input({ suspended: (u) => u === B }))).toEqual({ kind: 'local', reason: 'suspended' });
    const unannounced = routeMapOf(
      group(true, [
        [A, others],
        ['', [P]],
      ]),
      0,
    );
    expect(routeFor(input({ map: unannounced }))).toEqual({ kind: 'local', reason: 'unknown' });
  });
});

describe('routeMapOf', () => {
  it('names no owner while the group rebalances, nor for a partition two members claim', () => {
    expect(routeMapOf(group(false, [[B, [0, 1, 2]]]), 5).owners.size).toBe(0);
    const map = routeMapOf(
      group(true, [
        [A, [0, 1]],
        [B, [1, 2]],
      ]),
      5,
    );
    expect([...map.owners]).toEqual([
      [0, A],
      [2, B],
    ]);
    expect(map).toMatchObject({ fetchedAtMs: 5, partitionCount: 3 });
  });
});

describe(UsageRoutes.name, () => {
  const setup = () => {
    const clock = new FakeClock(10_000);
    const answers: (GroupAssignment | Error)[] = [];
    let reads = 0;
    const sut = new UsageRoutes(
      async () => {
        reads++;
        const next = answers.shift() ?? group(true, [[B, [0, 1, 2]]]);
        if (next instanceof Error) throw next;
        return next;
      },
      clock,
      { refreshMs: 1000, suspendMs: 5000 },
    );
    return { sut, clock, answers, reads: () => reads };
  };

  it('reads the group lazily at most once per refresh interval, and routes by no map older than three intervals', async () => {
    const { sut, clock, answers, reads } = setup();
    expect(sut.current()).toBeUndefined();
    expect(sut.current()).toBeUndefined();
    // the second call and refresh() share the read the first one started
    await sut.refresh();
    expect(reads()).toBe(1);
    expect(sut.current()?.owners.get(0)).toBe(B);
    clock.advance(999);
    sut.current();
    expect(reads()).toBe(1);

    // re-reads fail from now on: the old map serves until it is three intervals old
    answers.push(new Error('coordinator not available'), new Error('no'), new Error('no'));
    clock.advance(1);
    expect(sut.current()?.owners.get(0)).toBe(B);
    await sut.refresh();
    expect(reads()).toBe(2);
    clock.advance(1999);
    expect(sut.current()).toBeDefined();
    clock.advance(1);
    expect(sut.current()).toBeUndefined();
  });

  it('keeps the map fresh off the request path once started, until stopped', async () => {
    const clock = new FakeClock(10_000);
    let reads = 0;
    const ticks: (() => void)[] = [];
    const cancelled: unknown[] = [];
    const sut = new UsageRoutes(
      async () => (reads++, group(true, [[B, [0, 1, 2]]])),
      clock,
      { refreshMs: 1000, suspendMs: 5000 },
      undefined,
      {
        every: (ms, fn) => (expect(ms).toBe(1000), ticks.push(fn), 'handle'),
        cancel: (h) => cancelled.push(h),
      },
    );
    sut.start();
    sut.start();
    expect(ticks).toHaveLength(1);
    await sut.refresh();
    expect(reads).toBe(1);
    // a quiet spell far longer than three intervals: the interval's re-reads keep the map young,
    // so the first request after it is routed (the lazy re-read alone would leave it unrouted)
    for (let i = 0; i < 10; i++) {
      clock.advance(1000);
      ticks[0]();
      await sut.refresh();
    }
    expect(reads).toBe(11);
    expect(sut.current()?.owners.get(0)).toBe(B);
    sut.stop();
    expect(cancelled).toEqual(['handle']);
    clock.advance(3000);
    expect(sut.current()).toBeUndefined();
  });

  it('suspends a failed owner for a while', () => {
    const { sut, clock } = setup();
    sut.suspend(B);
    expect(sut.suspended(B)).toBe(true);
    expect(sut.suspended(A)).toBe(false);
    clock.advance(5000);
    expect(sut.suspended(B)).toBe(false);
  });
});
