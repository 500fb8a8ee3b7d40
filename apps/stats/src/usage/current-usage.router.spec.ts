import { usagePartitionOf } from '@ostore/queue/data-access';
import { FakeClock } from '@ostore/shared/clock/testing';
import { MetricsRegistry } from '@ostore/shared/observability';
import { BucketCurrentUsage, StatsMetrics } from '@ostore/stats/data-access';
import { CurrentUsageRouter } from './current-usage.router';
import { CurrentUsageJson, ForwardFailed } from './usage-owner.client';
import { UsageRoutes } from './usage-routes';

const BUCKET = '1a2b3c4d-0000-4000-8000-00000000000a';
const P = usagePartitionOf(BUCKET, 3);
const OWNER = 'http://stats-1:9103';

describe(CurrentUsageRouter.name, () => {
  const local: BucketCurrentUsage = {
    bucketId: BUCKET,
    bytes: 7,
    objects: 1,
    deltaEvents: 1,
    asOf: new Date(0),
  };
  const remote: CurrentUsageJson = {
    bucketId: BUCKET,
    bytes: 7,
    objects: 1,
    deltaEvents: 1,
    asOf: '1970-01-01T00:00:00.000Z',
  };

  const setup = async (opts: { owns?: boolean; fail?: boolean; timeoutMs?: number } = {}) => {
    const clock = new FakeClock(0);
    const routes = new UsageRoutes(
      async () => ({
        stable: true,
        partitionCount: 3,
        members: [{ memberId: 'm', data: OWNER, partitions: [P] }],
      }),
      clock,
      { refreshMs: 1000, suspendMs: 5000 },
    );
    await routes.refresh();
    const forwards: string[] = [];
    let reads = 0;
    const metrics = new StatsMetrics(new MetricsRegistry('test', false));
    const sut = new CurrentUsageRouter(
      { current: async () => (reads++, local) },
      routes,
      {
        current: async (url) => {
          forwards.push(url);
          if (opts.fail) throw new ForwardFailed('unreachable', 'connect ECONNREFUSED');
          return remote;
        },
      },
      (p) => opts.owns === true && p === P,
      metrics,
      { selfUrl: 'http://stats-0:9103', timeoutMs: opts.timeoutMs ?? 250 },
    );
    const forwarded = async () =>
      (await metrics.currentUsageAnswers.get()).values.find((v) => v.labels.path === 'forwarded')?.value;
    return { sut, clock, routes, forwards, reads: () => reads, forwarded };
  };

  it("answers with the owner's answer, once forwarded, and counts it", async () => {
    const { sut, forwards, reads, forwarded } = await setup();
    expect(await forwarded()).toBe(0);
    expect(await sut.current(BUCKET, false)).toBe(remote);
    expect(forwards).toEqual([OWNER]);
    expect(reads()).toBe(0);
    expect(await forwarded()).toBe(1);
  });

  it('never forwards a forwarded request, one of its own partitions, or with forwarding off', async () => {
    for (const [s, forwardedIn] of [
      [await setup(), true],
      [await setup({ owns: true }), false],
      [await setup({ timeoutMs: 0 }), false],
    ] as const) {
      expect(await s.sut.current(BUCKET, forwardedIn)).toBe(local);
      expect(s.forwards).toEqual([]);
      expect(s.reads()).toBe(1);
    }
  });

  it('answers itself when the owner fails, and does not try it again until the suspension ends', async () => {
    const { sut, clock, routes, forwards, reads, forwarded } = await setup({ fail: true });
    expect(await sut.current(BUCKET, false)).toBe(local);
    expect(await sut.current(BUCKET, false)).toBe(local);
    expect(forwards).toEqual([OWNER]);
    expect(reads()).toBe(2);
    expect(await forwarded()).toBe(0);
    clock.advance(5000);
    await routes.refresh();
    await sut.current(BUCKET, false);
    expect(forwards).toEqual([OWNER, OWNER]);
  });
});
