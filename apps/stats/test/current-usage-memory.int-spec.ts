import { usageDeltaMessage, UsageDelta } from '@ostore/queue/contracts';
import { KafkaClient, KafkaUsageSink } from '@ostore/queue/data-access';
import { SystemClock } from '@ostore/shared/clock';
import { CurrentUsageReader } from '@ostore/stats/data-access';
import { statsStores, StatsStores, usageDelta } from '@ostore/stats/data-access/testing';
import { windowStart } from '@ostore/stats/domain';
import { emptyHostSnapshot, SnapshotAccumulator } from '@ostore/stats/snapshot';
import { SnapshotStore } from '@ostore/stats/snapshot-store';
import { appEnv, AppProcess, freshCluster, stackEnv, waitFor } from '@ostore/testing';

const port = 25000 + Math.floor(Math.random() * 1000);
const MIN = 60_000;
/** X is in the combined snapshot (5000 bytes, 2 objects at the cut); Y is not (it had nothing before the cut). */
const X = '4c0ffee0-0000-4000-8000-0000000000aa';
const Y = '4c0ffee0-0000-4000-8000-0000000000bb';
const ANSWERS = 'ostore_stats_current_usage_answers_total';

/**
 * The stats app as deployed answers current usage for the buckets of the usage partitions it reads
 * from memory (OwnedWindows): after the first answer of a bucket (which reads Cassandra and seeds
 * the view), every answer comes from memory — `ostore_stats_current_usage_answers_total{path=
 * "memory"}` grows by one per answer and `{path="cassandra"}` does not move — while the answers
 * keep equal to an exact recount of what was published (snapshot + the deltas after its cut) and
 * to the answer of a reader that reads every aggregate from Cassandra, also after new deltas.
 */
describe('the stats app answers current usage of its own partitions from memory', () => {
  let s: StatsStores;
  let kafka: KafkaClient;
  let app: AppProcess;
  let store: SnapshotStore;
  let fromCassandra: CurrentUsageReader;
  const cluster = freshCluster('statsmem');
  const clock = new SystemClock();
  // one host's pass that started 10 minutes ago: the combination's cut is on the 5-minute grid before it
  const passStart = Date.now() - 10 * MIN;
  const cut = windowStart(new Date(passStart)).getTime();
  const published: UsageDelta[] = [];

  beforeAll(async () => {
    s = await statsStores('statsmem', clock, { eventsSeconds: 86_400, aggregatesSeconds: 86_400 });
    store = new SnapshotStore(s.client, clock);
    const acc = new SnapshotAccumulator(emptyHostSnapshot(passStart));
    for (const [name, size] of [
      ['a', 3000],
      ['b', 2000],
    ] as const)
      acc.addObject({
        bucketId: X,
        bucket: 'bucket-x',
        parent: '',
        name,
        current: { vts: (cut - 60 * MIN) * 1000, size, storageClass: 'STANDARD', isDeleteMarker: false },
        noncurrent: [],
      });
    await store.saveHostSnapshot(s.client.keyspace, {
      source: 'host-a',
      handler: 'versions',
      passTs: new Date(passStart),
      snapshot: acc.finish(),
    });
    fromCassandra = new CurrentUsageReader(store, s, s.client.keyspace, clock, {
      combinationMs: 0,
      maxBuckets: 0,
    });
    kafka = new KafkaClient({
      brokers: stackEnv().kafkaBrokers,
      clientId: 'stats-memory-spec',
      cluster,
      partitions: 3,
      replicationFactor: 1,
    });
    app = new AppProcess('stats', {
      ...appEnv(s.client.keyspace, cluster),
      MANAGEMENT_PORT: String(port),
      MANAGEMENT_HOST: '127.0.0.1',
      STATS_BATCH_SIZE: '50',
      STATS_SNAPSHOT_COMBINE_SECONDS: '1',
      SHUTDOWN_TIMEOUT_MS: '10000',
    }).start();
    await waitFor(
      'the app to be ready',
      async () => ((await fetch(`http://127.0.0.1:${port}/health/ready`)).ok ? true : undefined),
      60_000,
      250,
    ).catch((e) => {
      throw new Error(`${(e as Error).message}\n${app.output.join('')}`);
    });
    await waitFor(
      'the app to combine the host snapshot',
      async () =>
        (await store.latestCombination(s.client.keyspace))?.cut.getTime() === cut ? true : undefined,
      60_000,
      250,
    ).catch((e) => {
      throw new Error(`${(e as Error).message}\n${app.output.join('')}`);
    });
  });
  afterAll(async () => {
    await app?.stop();
    await kafka?.close();
    await s?.close();
  });

  /** The answers counter of the app by path. */
  const answers = async () => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const of = (path: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith(`${ANSWERS}{`) && l.includes(`path="${path}"`))
        .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
    return { memory: of('memory'), cassandra: of('cassandra') };
  };
  const answer = async (bucketId: string) => {
    const res = await fetch(`http://127.0.0.1:${port}/usage/buckets/${bucketId}`);
    expect(res.status).toBe(200);
    return (await res.json()) as {
      bucketId: string;
      bytes: number;
      objects: number;
      deltaEvents: number;
      cut?: string;
    };
  };
  /** Snapshot + every published delta at or after the cut. */
  const exact = (bucketId: string) => {
    const after = published.filter((d) => d.bucketId === bucketId && d.at.getTime() >= cut);
    return {
      bucketId,
      bytes: (bucketId === X ? 5000 : 0) + after.reduce((n, d) => n + d.bytes, 0),
      objects: (bucketId === X ? 2 : 0) + after.reduce((n, d) => n + (d.objects ?? 0), 0),
      deltaEvents: after.length,
      cut: new Date(cut).toISOString(),
    };
  };
  const fromTable = async (bucketId: string) => {
    const u = await fromCassandra.current(bucketId);
    return {
      bucketId: u.bucketId,
      bytes: u.bytes,
      objects: u.objects,
      deltaEvents: u.deltaEvents,
      cut: u.cut?.toISOString(),
    };
  };
  const publish = async (deltas: UsageDelta[]) => {
    published.push(...deltas);
    await new KafkaUsageSink(kafka).send(
      deltas.map((d) => ({ key: d.bucketId, value: usageDeltaMessage(d) })),
    );
  };
  /** Waits until the app's answers for both buckets equal the exact recount (every delta consumed and written). */
  const settled = () =>
    waitFor(
      'the app to answer the exact recount',
      async () => {
        for (const b of [X, Y])
          if (JSON.stringify(pick(await answer(b))) !== JSON.stringify(exact(b))) return undefined;
        return true;
      },
      60_000,
      250,
    ).catch(async (e) => {
      throw new Error(
        `${(e as Error).message}: X ${JSON.stringify(await answer(X))} vs ${JSON.stringify(exact(X))}\n${app.output.join('')}`,
      );
    });
  const pick = (u: Awaited<ReturnType<typeof answer>>) => ({
    bucketId: u.bucketId,
    bytes: u.bytes,
    objects: u.objects,
    deltaEvents: u.deltaEvents,
    cut: u.cut,
  });
  /** Five answers per bucket: each from memory, each equal to the recount and to the Cassandra path's answer. */
  const fiveFromMemory = async () => {
    const before = await answers();
    for (let i = 0; i < 5; i++)
      for (const b of [X, Y]) {
        const got = pick(await answer(b));
        expect(got).toEqual(exact(b));
        expect(got).toEqual(await fromTable(b));
      }
    expect(await answers()).toEqual({ memory: before.memory + 10, cassandra: before.cassandra });
  };

  it('counts both paths from the start, and answers owned buckets from memory, exactly', async () => {
    expect(await answers()).toEqual({ memory: 0, cassandra: 0 });
    const now = Date.now();
    await publish([
      // before the cut: already in the snapshot (object a), so not counted again
      usageDelta({ bucketId: X, bucket: 'bucket-x', at: new Date(cut - 60 * MIN), bytes: 3000, objects: 1 }),
      ...Array.from({ length: 40 }, (_, i) =>
        usageDelta({
          bucketId: i % 2 ? X : Y,
          bucket: i % 2 ? 'bucket-x' : 'bucket-y',
          at: new Date(cut + ((now - 30_000 - cut) * i) / 40),
          bytes: 100 + i,
          objects: 1,
        }),
      ),
    ]);
    await settled();
    // the first answers read Cassandra and seeded the view; from here on, memory
    expect((await answers()).cassandra).toBeGreaterThan(0);
    await fiveFromMemory();
  });

  it('keeps answering from memory, exactly, as new deltas arrive', async () => {
    const now = Date.now();
    await publish([
      usageDelta({
        bucketId: X,
        bucket: 'bucket-x',
        at: new Date(now - 20_000),
        bytes: -3000,
        objects: -1,
        kind: 'remove',
      }),
      ...Array.from({ length: 10 }, (_, i) =>
        usageDelta({
          bucketId: i % 2 ? X : Y,
          bucket: i % 2 ? 'bucket-x' : 'bucket-y',
          at: new Date(now - 10_000),
          bytes: 7,
          objects: 1,
        }),
      ),
    ]);
    const before = await answers();
    await settled();
    // the app's new answers (the waits above) came from memory: the recorder's writes keep the view current
    const during = await answers();
    expect(during.cassandra).toBe(before.cassandra);
    expect(during.memory).toBeGreaterThan(before.memory);
    await fiveFromMemory();
  });
});
