import { usageDeltaMessage } from '@ostore/queue/contracts';
import { KafkaClient, KafkaUsageSink } from '@ostore/queue/data-access';
import { SystemClock } from '@ostore/shared/clock';
import { statsStores, StatsStores, usageDelta } from '@ostore/stats/data-access/testing';
import { windowStart, WINDOW_MS } from '@ostore/stats/domain';
import { appEnv, AppProcess, freshCluster, metricSum, stackEnv, waitFor } from '@ostore/testing';

const port = 25000 + Math.floor(Math.random() * 1000);
const buckets = ['1a2b3c4d-0000-4000-8000-00000000000a', '1a2b3c4d-0000-4000-8000-00000000000b'];

/**
 * The stats app as deployed (main.ts, config, modules, the queue transport): it consumes the
 * usage topic, and a batch published twice (a producer's retry after a timeout) is counted once.
 */
describe('the stats app', () => {
  let s: StatsStores;
  let kafka: KafkaClient;
  let app: AppProcess;
  const cluster = freshCluster('statsapp');

  beforeAll(async () => {
    s = await statsStores('statsapp', new SystemClock(), {
      eventsSeconds: 86_400,
      aggregatesSeconds: 86_400,
    });
    kafka = new KafkaClient({
      brokers: stackEnv().kafkaBrokers,
      clientId: 'stats-spec',
      cluster,
      partitions: 3,
      replicationFactor: 1,
    });
    app = new AppProcess('stats', {
      ...appEnv(s.client.keyspace, cluster),
      MANAGEMENT_PORT: String(port),
      MANAGEMENT_HOST: '127.0.0.1',
      STATS_BATCH_SIZE: '50',
      SHUTDOWN_TIMEOUT_MS: '10000',
    }).start();
  });
  afterAll(async () => {
    await app?.stop();
    await kafka?.close();
    await s?.close();
  });

  const metric = (name: string) => metricSum(`http://127.0.0.1:${port}`, name);

  it('stores the usage topic as events and 5-minute aggregates, each event id once', async () => {
    const start = windowStart(Date.now() - 40 * 60_000).getTime();
    const deltas = Array.from({ length: 200 }, (_, i) =>
      usageDelta({ bucketId: buckets[i % 2], at: new Date(start + i * 9_000), bytes: 100 + i }),
    );
    const sink = new KafkaUsageSink(kafka);
    const messages = deltas.map((d) => ({ key: d.bucketId, value: usageDeltaMessage(d) }));
    await sink.send(messages);
    await sink.send([{ key: buckets[0], value: '{"v":2,"not":"a delta"}' }, ...messages.slice(0, 120)]);
    await sink.send(messages.slice(120));

    const expected = new Map<string, number>();
    for (const d of deltas) {
      const key = `${d.bucketId} ${windowStart(d.at).getTime()}`;
      expected.set(key, (expected.get(key) ?? 0) + d.bytes);
    }
    const stored = async () => {
      const got = new Map<string, number>();
      for (const b of buckets)
        for await (const a of s.aggregates.aggregates(
          b,
          new Date(start),
          new Date(start + 200 * 9_000 + WINDOW_MS),
        ))
          got.set(`${b} ${a.windowStart.getTime()}`, a.bytes);
      return got;
    };
    await waitFor(
      'every delivery consumed',
      async () =>
        (await metric('ostore_stats_usage_events_consumed_total').catch(() => 0)) === 400 ? true : undefined,
      60_000,
      250,
    ).catch((e) => {
      throw new Error(`${(e as Error).message}\n${app.output.join('')}`);
    });
    expect(await stored()).toEqual(expected);
    expect(await metric('ostore_stats_usage_dedup_hits_total')).toBe(200);
    expect(await metric('ostore_stats_usage_deltas_invalid_total')).toBe(1);
    let events = 0;
    for (const b of buckets) for await (const _ of s.events.events(b, new Date(start), new Date())) events++;
    expect(events).toBe(200);

    // current usage over HTTP: what the gateway's `bucket usage` shows for a bucket without a quota
    const usage = async (id: string) => fetch(`http://127.0.0.1:${port}/usage/buckets/${id}`);
    for (const [i, b] of buckets.entries()) {
      const res = await usage(b.toUpperCase());
      expect(res.status).toBe(200);
      const mine = deltas.filter((_, k) => k % 2 === i);
      expect(await res.json()).toMatchObject({
        bucketId: b,
        bytes: mine.reduce((n, d) => n + d.bytes, 0),
        objects: mine.length,
        deltaEvents: mine.length,
      });
    }
    expect(await (await usage('1a2b3c4d-0000-4000-8000-0000000000ff')).json()).toMatchObject({ bytes: 0, objects: 0 });
    expect((await usage('not-a-bucket-id')).status).toBe(400);
  });
});
