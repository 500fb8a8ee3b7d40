import { FakeClock } from '@ostore/shared/clock/testing';
import { lastClosedWindow, WINDOW_MS, windowStart } from '@ostore/stats/domain';
import { UsageDelta } from '@ostore/queue/contracts';
import { statsStores, StatsStores, usageDelta } from '../src/testing';

const retention = { eventsSeconds: 7 * 86_400, aggregatesSeconds: 30 * 86_400 };
const bucketId = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a';

describe('usage totals', () => {
  const clock = new FakeClock(Date.now());
  let s: StatsStores;
  const all: UsageDelta[] = [];

  beforeAll(async () => {
    s = await statsStores('usagetotals', clock, retention);
  });
  afterAll(() => s?.close());

  const expected = () => ({
    bytes: all.reduce((n, d) => n + d.bytes, 0),
    objects: all.reduce((n, d) => n + (d.objects ?? 0), 0),
    events: all.length,
  });
  const checkpoints = async () =>
    (
      await s.client.execute(
        `SELECT through_window, bytes, objects, events, WRITETIME(bytes) AS wt, TTL(bytes) AS ttl FROM usage_totals WHERE bucket_id = ?`,
        [bucketId],
      )
    ).rows.map((r) => ({
      through: (r['through_window'] as Date).getTime(),
      bytes: Number(r['bytes']),
      events: Number(r['events']),
      wt: Number(r['wt']),
    }));

  it('answers current usage from the newest checkpoint plus the open windows, the same after a replay', async () => {
    const now = clock.nowMs();
    const first = windowStart(now - 50 * 60_000).getTime();
    // events in ten closed windows and in the open one
    const deltas = Array.from({ length: 110 }, (_, i) =>
      usageDelta({
        bucketId,
        at: new Date(Math.min(first + i * 30_000, now - 1)),
        ...(i % 4 === 3
          ? { kind: 'remove' as const, bytes: -300, objects: -1 }
          : { bytes: 1000 + i, objects: 1 }),
      }),
    );
    for (let i = 0; i < deltas.length; i += 25) await s.recorder.record(deltas.slice(i, i + 25));
    all.push(...deltas);

    const usage = await s.totals.current(bucketId);
    expect(usage).toMatchObject({ bucketId, ...expected(), asOf: clock.now() });
    const cps = await checkpoints();
    expect(cps[0].through).toBe(lastClosedWindow(now).getTime());
    const covered = all.filter((d) => d.at.getTime() < cps[0].through + WINDOW_MS);
    expect(cps[0]).toMatchObject({ bytes: covered.reduce((n, d) => n + d.bytes, 0), events: covered.length });
    expect(covered.length).toBeLessThan(all.length); // the open window is answered from its aggregate

    await s.recorder.record([...deltas].reverse());
    expect(await s.totals.current(bucketId)).toMatchObject(expected());
    expect(await checkpoints()).toEqual(cps);
  });

  it('rebuilds the checkpoints a late event for a closed window made stale', async () => {
    const before = await checkpoints();
    const late = usageDelta({
      bucketId,
      at: new Date(before[before.length - 1].through - 3 * WINDOW_MS + 1000),
      bytes: 77_777,
    });
    await s.recorder.record([late]);
    all.push(late);
    expect(await s.totals.current(bucketId)).toMatchObject(expected());
    const after = await checkpoints();
    expect(after.map((c) => c.through)).toEqual(before.map((c) => c.through));
    after.forEach((c, i) => {
      expect(c.bytes).toBe(before[i].bytes + 77_777);
      expect(c.events).toBe(before[i].events + 1);
    });
  });

  it('moves the checkpoint on as windows close, without counting anything twice', async () => {
    clock.advance(20 * 60_000);
    const d = usageDelta({ bucketId, at: clock.now(), bytes: 5 });
    await s.recorder.record([d]);
    all.push(d);
    expect(await s.totals.current(bucketId)).toMatchObject(expected());
    expect((await checkpoints())[0].through).toBe(lastClosedWindow(clock.now()).getTime());
    clock.advance(-20 * 60_000);
  });
});
