import { FakeClock } from '@ostore/shared/clock/testing';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { statsStores, StatsStores, usageDelta } from '@ostore/stats/data-access/testing';
import { WINDOW_MS } from '@ostore/stats/domain';
import { CUT_GRID_MS, emptyHostSnapshot, SnapshotAccumulator, SnapshotObject } from '@ostore/stats/snapshot';
import { SnapshotStore } from '@ostore/stats/snapshot-store';
import { CurrentUsageReader } from '../src/snapshots/current-usage';
import { SnapshotCombiner } from '../src/snapshots/snapshot-combiner';
import { SnapshotMetrics } from '../src/snapshots/snapshot.metrics';

const T = Date.UTC(2026, 11, 1, 12, 0, 0);
const MIN = 60_000;
const X = '7d3f5a10-0000-4000-8000-0000000000aa';
const Y = '7d3f5a10-0000-4000-8000-0000000000bb';

const object = (bucketId: string, name: string, size: number, writtenAt: number): SnapshotObject => ({
  bucketId,
  bucket: bucketId === X ? 'bucket-x' : 'bucket-y',
  parent: '',
  name,
  current: { vts: writtenAt * 1000, size, storageClass: 'STANDARD', isDeleteMarker: false },
  noncurrent: [],
});

/**
 * The stats side of scan snapshots against the real Cassandra: two hosts' completed snapshots
 * (written through the same store the scanner writes with) combined at their common cut, and
 * current usage = that snapshot + the usage deltas recorded after the cut, equal to the true state
 * although the hosts scanned at different times while the bucket changed.
 */
describe('snapshot combination and current usage (Cassandra)', () => {
  let s: StatsStores;
  let clock: FakeClock;
  let store: SnapshotStore;
  let combiner: SnapshotCombiner;
  let metrics: SnapshotMetrics;
  let reader: CurrentUsageReader;

  beforeAll(async () => {
    clock = new FakeClock(T - 3 * 3_600_000);
    s = await statsStores('snapcomb', clock, { eventsSeconds: 30 * 86_400, aggregatesSeconds: 30 * 86_400 });
    store = new SnapshotStore(s.client, clock);
    metrics = new SnapshotMetrics(new MetricsRegistry('stats', false));
    combiner = new SnapshotCombiner(
      store,
      s.client.keyspace,
      clock,
      metrics,
      new JsonLogger('test', 'silent').forContext('spec'),
    );
    reader = new CurrentUsageReader(store, s, s.client.keyspace, clock);
  });
  afterAll(() => s?.close());

  /** A host's pass that started at `startMs` and read `objects`, completed at `doneMs`. */
  const hostPass = async (source: string, startMs: number, doneMs: number, objects: SnapshotObject[]) => {
    const acc = new SnapshotAccumulator(emptyHostSnapshot(startMs));
    objects.forEach((o) => acc.addObject(o));
    clock.set(doneMs);
    await store.saveHostSnapshot(s.client.keyspace, {
      source,
      handler: 'versions',
      passTs: new Date(startMs),
      snapshot: acc.finish(),
    });
  };
  const delta = (bucketId: string, at: number, bytes: number, objects: number) =>
    usageDelta({ bucketId, at: new Date(at), bytes, objects, kind: bytes < 0 ? 'remove' : 'store' });

  it('pins the cut grid to the aggregate window', () => {
    expect(CUT_GRID_MS).toBe(WINDOW_MS);
  });

  it('adds to the combined snapshot exactly the deltas after its cut, across hosts that scanned at different times', async () => {
    // the history of bucket X; every change is also a usage delta
    const history = [
      delta(X, T - 120 * MIN, 2000, 1), // b1
      delta(X, T - 60 * MIN, 1000, 1), // a1
      delta(Y, T - 50 * MIN, 40, 1), // y1
      delta(X, T + 10 * MIN, 300, 1), // b2: after host a's cut, before host b's
      delta(X, T + 31 * MIN, 50, 1), // b3: after both cuts, read by host b
      delta(X, T + 40 * MIN, -1000, -1), // a1 removed after host a read it
      delta(X, T + 50 * MIN, 7, 1), // c, on host a's ranges after it passed
    ];
    clock.set(T + 55 * MIN);
    await s.recorder.record(history);

    // host a scans from T+2min (cut T), host b from T+33min (cut T+30min)
    await hostPass('host-a', T + 2 * MIN, T + 20 * MIN, [
      object(X, 'a1', 1000, T - 60 * MIN),
      object(Y, 'y1', 40, T - 50 * MIN),
    ]);
    await hostPass('host-b', T + 33 * MIN, T + 45 * MIN, [
      object(X, 'b1', 2000, T - 120 * MIN),
      object(X, 'b2', 300, T + 10 * MIN),
      object(X, 'b3', 50, T + 31 * MIN),
    ]);
    clock.set(T + 55 * MIN);
    const { outcome, combined } = await combiner.combineOnce();
    expect(outcome).toBe('combined');
    expect(combined!.cut).toEqual(new Date(T));
    expect(combined!.buckets.find((b) => b.bucketId === X)).toMatchObject({
      bytes: 3000,
      objects: 2,
      name: 'bucket-x',
    });

    const x = await reader.current(X);
    expect(x).toMatchObject({ bytes: 2000 + 300 + 50 + 7, objects: 4, cut: new Date(T), deltaEvents: 4 });
    expect(await reader.current(Y)).toMatchObject({ bytes: 40, objects: 1, deltaEvents: 0 });
    expect((await metrics.ageSeconds.get()).values[0].value).toBe(35 * 60);
    expect((await metrics.buckets.get()).values[0].value).toBe(2);

    expect((await combiner.combineOnce()).outcome).toBe('unchanged');

    // host a's next pass (cut T+60min) no longer sees a1 nor y1 (y1's removal never reached stats, say).
    // The combination's cut is host b's, T+30min: a1's removal at T+40min, before host a read its key,
    // is both missing from the snapshot and a delta after the cut: the documented bound (README,
    // "Snapshots"), at most the bytes of older versions removed between the cut and the hosts' reads.
    await hostPass('host-a', T + 62 * MIN, T + 70 * MIN, [object(X, 'c', 7, T + 50 * MIN)]);
    clock.set(T + 71 * MIN);
    const again = await combiner.combineOnce();
    expect(again.outcome).toBe('combined');
    expect(again.combined!.cut).toEqual(new Date(T + 30 * MIN));
    expect(await reader.current(X)).toMatchObject({
      bytes: 2357 - 1000,
      objects: 4 - 1,
      cut: new Date(T + 30 * MIN),
    });
    expect(await reader.current(Y)).toMatchObject({ bytes: 0, objects: 0 });

    // once every host has scanned after the removal, the snapshot is exact again: errors never pile up
    await hostPass('host-b', T + 63 * MIN, T + 75 * MIN, [
      object(X, 'b1', 2000, T - 120 * MIN),
      object(X, 'b2', 300, T + 10 * MIN),
      object(X, 'b3', 50, T + 31 * MIN),
    ]);
    clock.set(T + 76 * MIN);
    expect((await combiner.combineOnce()).combined!.cut).toEqual(new Date(T + 60 * MIN));
    expect(await reader.current(X)).toMatchObject({ bytes: 2357, objects: 4, deltaEvents: 0 });
  });

  it('keeps the newest combination when a host snapshot is too old to be brought to the common cut', async () => {
    await hostPass('host-b', T + 5 * 3_600_000, T + 5 * 3_600_000 + MIN, []);
    const before = await store.latestCombination(s.client.keyspace);
    expect((await combiner.combineOnce()).outcome).toBe('too_far_apart');
    expect(await store.latestCombination(s.client.keyspace)).toEqual(before);
    expect(
      (await metrics.combinations.get()).values.find((v) => v.labels.outcome === 'too_far_apart')?.value,
    ).toBe(1);
  });

  it('keeps the first combination of a cut: a newer pass at the same cut would count a removal since the cut twice', async () => {
    const H = T + 5 * 3_600_000; // host-b has just passed with cut H
    const Z = '7d3f5a10-0000-4000-8000-0000000000cc';
    clock.set(H + MIN);
    await s.recorder.record([delta(Z, H - 60 * MIN, 100, 1)]);
    await hostPass('host-a', H + MIN, H + 2 * MIN, [object(Z, 'z1', 100, H - 60 * MIN)]);
    const first = await combiner.combineOnce();
    expect(first.combined?.cut).toEqual(new Date(H));
    // z1 removed after the cut: the combination of cut H has it, its delta takes it out
    clock.set(H + 150_000);
    await s.recorder.record([delta(Z, H + 150_000, -100, -1)]);
    // host-a passes again within the same 5-minute window (cut H) and no longer sees z1
    await hostPass('host-a', H + 3 * MIN, H + 4 * MIN, []);
    expect((await combiner.combineOnce()).outcome).toBe('unchanged');
    // a reader that has cached nothing (a restarted stats process) answers as the running one
    const fresh = new CurrentUsageReader(store, s, s.client.keyspace, clock);
    expect(await fresh.current(Z)).toMatchObject({ bytes: 0, objects: 0, cut: new Date(H), deltaEvents: 1 });
    // another cut replaces it as before
    await hostPass('host-a', H + 6 * MIN, H + 7 * MIN, []);
    await hostPass('host-b', H + 6 * MIN, H + 7 * MIN, []);
    expect((await combiner.combineOnce()).combined?.cut).toEqual(new Date(H + 5 * MIN));
    expect(await fresh.current(Z)).toMatchObject({ bytes: 0, objects: 0, deltaEvents: 0 });
  });

  it('combines the first pass of a new cut however late the stats app combines (down across the boundary): removals since the cut count once', async () => {
    const K = T + 10 * 3_600_000; // a 5-minute boundary, well after the other tests' passes
    const W = '7d3f5a10-0000-4000-8000-0000000000dd';
    clock.set(K - 4 * MIN);
    await s.recorder.record([delta(W, K - 60 * MIN, 100, 1), delta(W, K - 30 * MIN, 200, 1)]);
    const w1 = object(W, 'w1', 100, K - 60 * MIN);
    const w2 = object(W, 'w2', 200, K - 30 * MIN);
    // the stats app is up before the boundary: a combination at cut K-5min
    await hostPass('host-a', K - 4 * MIN, K - 3 * MIN, [w1, w2]);
    await hostPass('host-b', K - 4 * MIN, K - 3 * MIN, []);
    expect((await combiner.combineOnce()).combined?.cut).toEqual(new Date(K - 5 * MIN));
    expect(await reader.current(W)).toMatchObject({ bytes: 300, objects: 2 });

    // ... and down across it: the scanner goes on passing every few seconds, nobody combines
    await hostPass('host-a', K + 10_000, K + 20_000, [w1, w2]);
    await hostPass('host-b', K + 10_000, K + 20_000, []);
    // w1 deleted, w2 overwritten by w3: removals after the cut of versions written before it
    clock.set(K + 30_000);
    await s.recorder.record([
      delta(W, K + 30_000, -100, -1),
      delta(W, K + 30_000, -200, -1),
      delta(W, K + 30_000, 50, 1),
    ]);
    // the next passes at the same cut no longer see w1 and w2 (w3 is after the cut: left to its delta)
    await hostPass('host-a', K + 40_000, K + 50_000, [object(W, 'w3', 50, K + 30_000)]);
    await hostPass('host-b', K + 40_000, K + 50_000, []);

    // the stats app is back and combines: the first passes of cut K, which read w1 and w2
    clock.set(K + 60_000);
    const { combined } = await combiner.combineOnce();
    expect(combined?.cut).toEqual(new Date(K));
    // = w3 alone, what a recount finds (with the later passes combined: 0 - 300 + 50 = -250 B)
    expect(await reader.current(W)).toMatchObject({
      bytes: 50,
      objects: 1,
      cut: new Date(K),
      deltaEvents: 3,
    });
    expect(combined?.oldestCompletedAt).toEqual(new Date(K + 20_000));
    expect(combined?.buckets.find((b) => b.bucketId === W)).toMatchObject({ bytes: 300, versions: 2 });
    const fresh = new CurrentUsageReader(store, s, s.client.keyspace, clock);
    expect(await fresh.current(W)).toMatchObject({ bytes: 50, objects: 1, cut: new Date(K) });
  });
});
