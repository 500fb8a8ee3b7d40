import { mkdtemp, readdir, rm } from 'fs/promises';
import { tmpdir } from 'os';
import { join } from 'path';
import { UsageDelta, usageDeltaMessage } from '@ostore/queue/contracts';
import { KafkaClient, KafkaUsageSink } from '@ostore/queue/data-access';
import { SystemClock } from '@ostore/shared/clock';
import { statsStores, StatsStores, usageDelta } from '@ostore/stats/data-access/testing';
import { appEnv, AppProcess, freshCluster, metricSum, stackEnv, waitFor } from '@ostore/testing';

const port = 26000 + Math.floor(Math.random() * 1000);
const buckets = ['2b3c4d5e-0000-4000-8000-00000000000a', '2b3c4d5e-0000-4000-8000-00000000000b'];

/**
 * Real-time usage survives the stats process: killed (SIGKILL, nothing committed at the end, no
 * graceful close) once with its local store kept and once with the store deleted, with duplicate
 * deliveries before and after, the usage totals equal the exact sum of the distinct events.
 */
describe('the stats app, killed mid-run and with its local store lost', () => {
  let s: StatsStores;
  let kafka: KafkaClient;
  let app: AppProcess | undefined;
  let dataDir: string;
  const cluster = freshCluster('statsrec');
  const sent: UsageDelta[] = [];

  beforeAll(async () => {
    s = await statsStores('statsrec', new SystemClock(), { eventsSeconds: 86_400, aggregatesSeconds: 86_400 });
    kafka = new KafkaClient({ brokers: stackEnv().kafkaBrokers, clientId: 'stats-rec-spec', cluster, partitions: 3, replicationFactor: 1 });
    dataDir = await mkdtemp(join(tmpdir(), 'ostore-stats-rec-'));
  });
  afterAll(async () => {
    await app?.stop();
    await kafka?.close();
    await s?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const start = () =>
    new AppProcess('stats', {
      ...appEnv(s.client.keyspace, cluster),
      MANAGEMENT_PORT: String(port),
      MANAGEMENT_HOST: '127.0.0.1',
      STATS_BATCH_SIZE: '40',
      STATS_DATA_DIR: dataDir,
      SHUTDOWN_TIMEOUT_MS: '10000',
    }).start();
  const consumed = () => metricSum(`http://127.0.0.1:${port}`, 'ostore_stats_usage_events_consumed_total').catch(() => 0);
  const sink = () => new KafkaUsageSink(kafka);
  /** `n` new deltas over the last 15 minutes (closed and open windows), removals among them. */
  const fresh = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      usageDelta({
        bucketId: buckets[i % 2],
        at: new Date(Date.now() - 15 * 60_000 + Math.floor((i / n) * 15 * 60_000)),
        ...(i % 7 === 6 ? { kind: 'remove' as const, bytes: -50, objects: -1 } : { bytes: 100 + (i % 13), objects: 1 }),
      }),
    );
  const publish = async (deltas: UsageDelta[]) => {
    for (let i = 0; i < deltas.length; i += 200)
      await sink().send(deltas.slice(i, i + 200).map((d) => ({ key: d.bucketId, value: usageDeltaMessage(d) })));
  };
  const killWhenConsumed = async (atLeast: number) => {
    await waitFor('part of the input consumed', async () => ((await consumed()) >= atLeast ? true : undefined), 90_000, 100).catch((e) => {
      throw new Error(`${(e as Error).message}\n${app?.output.join('')}`);
    });
    app!.signal('SIGKILL');
    await app!.waitForExit(10_000);
  };

  it('counts every distinct event exactly once', async () => {
    const first = fresh(1200);
    sent.push(...first);
    await publish(first);
    app = start();
    await killWhenConsumed(300);

    // restarted with its store: batches after the last commit come again
    const second = fresh(800);
    sent.push(...second);
    await publish([...second, ...first.slice(0, 300)]);
    app = start();
    await killWhenConsumed(200);
    expect((await readdir(dataDir)).length).toBeGreaterThan(0);
    await rm(dataDir, { recursive: true, force: true });

    // restarted without it: every window is rebuilt from Cassandra, the duplicates are recognised there
    const third = fresh(600);
    sent.push(...third);
    await publish([...first.slice(600, 900), ...third, ...second.slice(0, 200)]);
    app = start();

    const expected = (bucketId: string) => {
      const mine = sent.filter((d) => d.bucketId === bucketId);
      return {
        bytes: mine.reduce((n, d) => n + d.bytes, 0),
        objects: mine.reduce((n, d) => n + (d.objects ?? 0), 0),
        events: mine.length,
      };
    };
    for (const b of buckets) {
      const want = expected(b);
      let got: unknown;
      await waitFor(
        `usage of ${b} equals the sum of its events`,
        async () => {
          const u = await s.totals.current(b);
          got = { bytes: u.bytes, objects: u.objects, events: u.events };
          return u.bytes === want.bytes && u.objects === want.objects && u.events === want.events ? true : undefined;
        },
        120_000,
        250,
      ).catch((e) => {
        throw new Error(`${(e as Error).message}: want ${JSON.stringify(want)}, got ${JSON.stringify(got)}\n${app?.output.slice(-20).join('')}`);
      });
    }
    let stored = 0;
    for (const b of buckets) for await (const _ of s.events.events(b, new Date(Date.now() - 20 * 60_000), new Date())) stored++;
    expect(stored).toBe(sent.length);
    // three app starts and the waits above, each with its own deadline: 65 s on the 2-core box,
    // so jest's default 120 s was the tightest bound of all, and with no message of what stalled
  }, 420_000);
});
