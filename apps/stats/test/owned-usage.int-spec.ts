import { FakeClock } from '@ostore/shared/clock/testing';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { CurrentUsageReader, OwnedWindows, PartitionOwnership } from '@ostore/stats/data-access';
import { statsStores, StatsStores, usageDelta } from '@ostore/stats/data-access/testing';
import { windowStart } from '@ostore/stats/domain';
import { emptyHostSnapshot, SnapshotAccumulator } from '@ostore/stats/snapshot';
import { SnapshotStore } from '@ostore/stats/snapshot-store';
import { UsageDelta } from '@ostore/queue/contracts';
import { SnapshotCombiner } from '../src/snapshots/snapshot-combiner';
import { SnapshotMetrics } from '../src/snapshots/snapshot.metrics';

const T = Date.UTC(2026, 11, 1, 12, 0, 0);
const MIN = 60_000;
const X = '9a1f0c22-0000-4000-8000-0000000000aa';

/**
 * Current usage answered from the in-memory aggregates of the partitions this process reads
 * (OwnedWindows) against the real Cassandra: every answer equals the one of a reader that reads
 * every row; the memory is really used (an aggregate written behind its back is not seen while the
 * partition is ours), and it is dropped as soon as the partition may have changed hands (a new
 * group generation, the partition no longer assigned, a batch that does not continue where this
 * process left off).
 */
describe('current usage from the owned partitions in memory (Cassandra)', () => {
  let s: StatsStores;
  let clock: FakeClock;
  let owned: OwnedWindows;
  let fromMemory: CurrentUsageReader;
  let fromCassandra: CurrentUsageReader;
  const ownership = { generation: 1, partitions: [0] };
  const view: PartitionOwnership = {
    generation: () => ownership.generation,
    owns: (p) => ownership.partitions.includes(p),
  };
  let offset = 0;

  beforeAll(async () => {
    clock = new FakeClock(T + 40 * MIN);
    owned = new OwnedWindows(view);
    s = await statsStores(
      'owned',
      clock,
      { eventsSeconds: 30 * 86_400, aggregatesSeconds: 30 * 86_400 },
      { owned },
    );
    const store = new SnapshotStore(s.client, clock);
    const metrics = new SnapshotMetrics(new MetricsRegistry('stats', false));
    const combiner = new SnapshotCombiner(
      store,
      s.client.keyspace,
      clock,
      metrics,
      new JsonLogger('test', 'silent').forContext('spec'),
    );
    // one host's completed pass with cut T: X held 5000 bytes in 2 objects then
    const acc = new SnapshotAccumulator(emptyHostSnapshot(T + 2 * MIN));
    for (const [name, size] of [
      ['a', 3000],
      ['b', 2000],
    ] as const)
      acc.addObject({
        bucketId: X,
        bucket: 'bucket-x',
        parent: '',
        name,
        current: { vts: (T - 60 * MIN) * 1000, size, storageClass: 'STANDARD', isDeleteMarker: false },
        noncurrent: [],
      });
    await store.saveHostSnapshot(s.client.keyspace, {
      source: 'host-a',
      handler: 'versions',
      passTs: new Date(T + 2 * MIN),
      snapshot: acc.finish(),
    });
    expect((await combiner.combineOnce()).combined?.cut).toEqual(new Date(T));
    fromMemory = new CurrentUsageReader(
      store,
      s,
      s.client.keyspace,
      clock,
      { combinationMs: 0, maxBuckets: 100 },
      owned,
    );
    fromCassandra = new CurrentUsageReader(store, s, s.client.keyspace, clock, {
      combinationMs: 0,
      maxBuckets: 0,
    });
  });
  afterAll(() => s?.close());

  const delta = (at: number, bytes: number, objects: number) =>
    usageDelta({
      bucketId: X,
      bucket: 'bucket-x',
      at: new Date(at),
      bytes,
      objects,
      kind: bytes < 0 ? 'remove' : 'store',
    });
  /** Records a batch of partition 0 continuing at the next offset (or at `at`, a jump). */
  const record = async (deltas: UsageDelta[], at = offset) => {
    await s.recorder.record(deltas, { partition: 0, firstOffset: at, nextOffset: at + deltas.length });
    offset = at + deltas.length;
  };
  const same = async () => {
    const [m, c] = await Promise.all([fromMemory.current(X), fromCassandra.current(X)]);
    expect(m).toEqual(c);
    return m;
  };
  /** An aggregate row written behind the view's back, as another process would. */
  const foreignWrite = (start: number, bytes: number, events: number) =>
    s.aggregates.write(X, new Date(start), { bytes, objects: 0, events });

  it('answers exactly what Cassandra holds, from memory while the partition is ours', async () => {
    await record([delta(T - 10 * MIN, 100, 1), delta(T + 3 * MIN, 400, 1), delta(T + 8 * MIN, -3000, -1)]);
    expect(await same()).toMatchObject({ bytes: 5000 + 400 - 3000, objects: 2, deltaEvents: 2 });
    expect(owned.size).toBe(1);
    await record([delta(T + 12 * MIN, 70, 1), delta(T + 13 * MIN, 30, 1)]);
    expect(await same()).toMatchObject({ bytes: 2500, objects: 4, deltaEvents: 4 });

    // a write memory did not see: while the partition is ours nobody else writes, and memory answers
    const late = windowStart(new Date(T + 17 * MIN)).getTime();
    await foreignWrite(late, 1_000_000, 1);
    expect(await fromMemory.current(X)).toMatchObject({ bytes: 2500 });
    expect(await fromCassandra.current(X)).toMatchObject({ bytes: 1_002_500 });

    // a new group generation: the partition may have had another reader, so Cassandra is read again
    ownership.generation++;
    expect(await same()).toMatchObject({ bytes: 1_002_500 });
  });

  it('reads Cassandra again once the partition is not assigned here, and after a batch that does not continue', async () => {
    await record([delta(T + 14 * MIN, 5, 1)]);
    expect(await same()).toMatchObject({ bytes: 1_002_505 });
    const late = windowStart(new Date(T + 18 * MIN)).getTime() + 5 * MIN;
    await foreignWrite(late, 20, 1);
    ownership.partitions = [];
    expect(await same()).toMatchObject({ bytes: 1_002_525 });
    ownership.partitions = [0];

    await record([delta(T + 11 * MIN, 1, 1)]);
    expect(await same()).toMatchObject({ bytes: 1_002_526 });
    await foreignWrite(late + 5 * MIN, 300, 1);
    // offsets jumped: another reader processed the partition meanwhile (a new lease)
    await record([delta(T + 12 * MIN, 2, 1)], offset + 50);
    expect(await same()).toMatchObject({ bytes: 1_002_828 });
  });
});
