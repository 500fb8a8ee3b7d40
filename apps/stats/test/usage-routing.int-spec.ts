import { randomUUID } from 'crypto';
import { usageDeltaMessage } from '@ostore/queue/contracts';
import { GroupAssignment, KafkaClient, KafkaUsageSink, usagePartitionOf } from '@ostore/queue/data-access';
import { SystemClock } from '@ostore/shared/clock';
import { statsStores, StatsStores, usageDelta } from '@ostore/stats/data-access/testing';
import { emptyHostSnapshot, SnapshotAccumulator } from '@ostore/stats/snapshot';
import { SnapshotStore } from '@ostore/stats/snapshot-store';
import { appEnv, AppProcess, freshCluster, metricSum, stackEnv, waitFor } from '@ostore/testing';

const base = 26000 + Math.floor(Math.random() * 1000);
const urls = [`http://127.0.0.1:${base}`, `http://127.0.0.1:${base + 1}`];

/** The sum of a counter's series carrying `label` (e.g. `path="forwarded"`). */
async function series(url: string, name: string, label: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) && l.includes(label))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}
const answers = (url: string, path: string) =>
  series(url, 'ostore_stats_current_usage_answers_total', `path="${path}"`);

/**
 * Two stats app processes in one consumer group, each announcing its URL: a current-usage request
 * to the replica that does not read the bucket's usage partition is answered by the one that does
 * (forwarded once: the non-owner counts path=forwarded, the owner path=memory), with the owner's
 * very answer; with the owner hung (SIGSTOP) the forward times out and the non-owner answers
 * itself from Cassandra, exactly, and forwards again once the owner is back; with the owner killed
 * (still a member until its session times out) the non-owner answers itself, still exactly.
 */
describe('current usage routed to the owner of the bucket’s usage partition (two stats apps)', () => {
  let s: StatsStores;
  let kafka: KafkaClient;
  const apps: AppProcess[] = [];
  const cluster = freshCluster('statsroute');

  beforeAll(async () => {
    s = await statsStores('statsroute', new SystemClock(), {
      eventsSeconds: 86_400,
      aggregatesSeconds: 86_400,
    });
    kafka = new KafkaClient({
      brokers: stackEnv().kafkaBrokers,
      clientId: 'stats-route-spec',
      cluster,
      partitions: 3,
      replicationFactor: 1,
    });
    // one completed scan pass 30 minutes ago that saw no objects: the owner's memory then answers
    // (without any combination the totals are read from Cassandra)
    const passTs = new Date(Date.now() - 30 * 60_000);
    await new SnapshotStore(s.client, new SystemClock()).saveHostSnapshot(s.client.keyspace, {
      source: 'host-a',
      handler: 'versions',
      passTs,
      snapshot: new SnapshotAccumulator(emptyHostSnapshot(passTs.getTime())).finish(),
    });
    // the topic exists before both apps join, so that both see its three partitions
    await kafka.ensureTopic('usage');
    for (const [i, url] of urls.entries())
      apps.push(
        new AppProcess('stats', {
          ...appEnv(s.client.keyspace, cluster),
          KAFKA_TOPIC_PARTITIONS: '3',
          MANAGEMENT_PORT: String(base + i),
          MANAGEMENT_HOST: '127.0.0.1',
          STATS_ADVERTISED_URL: url,
          STATS_ROUTE_REFRESH_MS: '300',
          STATS_ROUTE_TIMEOUT_MS: '1000',
          STATS_SNAPSHOT_COMBINE_SECONDS: '1',
          SHUTDOWN_TIMEOUT_MS: '10000',
        }).start(),
      );
  });
  afterAll(async () => {
    for (const a of apps) await a?.stop();
    await kafka?.close();
    await s?.close();
  });

  const output = () => apps.map((a, i) => `--- app ${i}\n${a.output.join('')}`).join('\n');
  const usage = async (url: string, bucketId: string) => {
    const res = await fetch(`${url}/usage/buckets/${bucketId}`);
    expect(res.status).toBe(200);
    return (await res.json()) as {
      bucketId: string;
      bytes: number;
      objects: number;
      deltaEvents: number;
      cut?: string;
    };
  };

  it('answers a non-owner’s request through the owner, by itself while the owner hangs or is gone', async () => {
    const group = await waitFor(
      'both apps hold partitions of the usage topic',
      async (): Promise<GroupAssignment | undefined> => {
        const g = await kafka.groupAssignment('usage', 'stats');
        const holders = g.members.filter((m) => urls.includes(m.data) && m.partitions.length > 0);
        return g.stable && holders.length === 2 ? g : undefined;
      },
      90_000,
      250,
    ).catch((e) => {
      throw new Error(`${(e as Error).message}\n${output()}`);
    });
    const ownerOf = (bucketId: string) => {
      const p = usagePartitionOf(bucketId, group.partitionCount);
      return urls.indexOf(group.members.find((m) => m.partitions.includes(p))!.data);
    };
    // a bucket of a partition app 1 reads: app 0 is its non-owner
    let bucket = randomUUID();
    while (ownerOf(bucket) !== 1) bucket = randomUUID();
    const [nonOwner, owner] = urls;

    const deltas = Array.from({ length: 40 }, (_, i) =>
      usageDelta({
        bucketId: bucket,
        at: new Date(Date.now() - 60_000 + i * 100),
        bytes: 1000 + i,
        objects: 1,
      }),
    );
    await new KafkaUsageSink(kafka).send(
      deltas.map((d) => ({ key: d.bucketId, value: usageDeltaMessage(d) })),
    );
    const expected = {
      bucketId: bucket,
      bytes: deltas.reduce((n, d) => n + d.bytes, 0),
      objects: 40,
      deltaEvents: 40,
    };
    await waitFor(
      'the owner consumed every delta',
      async () =>
        (await metricSum(owner, 'ostore_stats_usage_events_consumed_total')) === 40 ? true : undefined,
      60_000,
      200,
    ).catch((e) => {
      throw new Error(`${(e as Error).message}\n${output()}`);
    });
    expect(await metricSum(nonOwner, 'ostore_stats_usage_events_consumed_total')).toBe(0);

    // the non-owner forwards once its map of the group is read (lazily, on the first requests),
    // and the owner answers from memory once the snapshot is combined and its view seeded
    await waitFor(
      'the non-owner forwards to the owner, which answers from memory',
      async () => {
        const before = await answers(owner, 'memory');
        const got = await usage(nonOwner, bucket);
        return got.cut &&
          (await answers(owner, 'memory')) > before &&
          (await answers(nonOwner, 'forwarded')) > 0
          ? true
          : undefined;
      },
      10_000,
      100,
    );
    const before = {
      forwarded: await answers(nonOwner, 'forwarded'),
      localHere: (await answers(nonOwner, 'memory')) + (await answers(nonOwner, 'cassandra')),
      ownerMemory: await answers(owner, 'memory'),
    };
    const routed = await usage(nonOwner, bucket);
    expect(routed.cut).toBeDefined();
    const direct = await usage(owner, bucket);
    expect(routed).toMatchObject(expected);
    // asOf and the snapshot's age in whole seconds depend on when each answer was made: the direct
    // one comes after the routed one, so its age may be a second more (a CI run saw 6 against 5)
    type Timed = typeof routed & { asOf: string; snapshotAgeSeconds?: number };
    const { asOf: _a, snapshotAgeSeconds: routedAge, ...routedFigures } = routed as Timed;
    const { asOf: _b, snapshotAgeSeconds: directAge, ...directFigures } = direct as Timed;
    expect(routedFigures).toEqual(directFigures);
    expect(directAge! - routedAge!).toBeGreaterThanOrEqual(0);
    expect(directAge! - routedAge!).toBeLessThanOrEqual(1);
    expect(await answers(nonOwner, 'forwarded')).toBe(before.forwarded + 1);
    expect((await answers(nonOwner, 'memory')) + (await answers(nonOwner, 'cassandra'))).toBe(
      before.localHere,
    );
    // the routed request and the direct one, both from the owner's memory
    expect(await answers(owner, 'memory')).toBe(before.ownerMemory + 2);

    // the plain route (ahead of express and Nest) answered: express would have added its header
    const plain = await fetch(`${nonOwner}/usage/buckets/${bucket}`);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('x-powered-by')).toBeNull();
    expect(await plain.json()).toMatchObject(expected);

    // the owner hangs (SIGSTOP): its socket still accepts the forward, nobody answers it, the
    // forward times out (STATS_ROUTE_TIMEOUT_MS) and the non-owner answers from Cassandra, exactly;
    // the owner is then suspended, so the next request does not wait for it
    const timedOut = () =>
      apps[0].output
        .join('')
        .split('\n')
        .filter((l) => l.includes('current-usage forward failed') && l.includes('"reason":"timeout"')).length;
    const hung = {
      forwarded: await answers(nonOwner, 'forwarded'),
      cassandra: await answers(nonOwner, 'cassandra'),
      timedOut: timedOut(),
    };
    apps[1].signal('SIGSTOP');
    try {
      expect(await usage(nonOwner, bucket)).toMatchObject(expected);
      expect(await usage(nonOwner, bucket)).toMatchObject(expected);
      expect(await answers(nonOwner, 'forwarded')).toBe(hung.forwarded);
      expect(await answers(nonOwner, 'cassandra')).toBe(hung.cassandra + 2);
      await waitFor('the non-owner logged the timed-out forward', async () =>
        timedOut() === hung.timedOut + 1 ? true : undefined,
      );
    } finally {
      apps[1].signal('SIGCONT');
    }
    // once the owner answers again and its suspension is over, requests are forwarded to it again
    await waitFor(
      'forwards to the resumed owner',
      async () => {
        const before = await answers(nonOwner, 'forwarded');
        expect(await usage(nonOwner, bucket)).toMatchObject(expected);
        return (await answers(nonOwner, 'forwarded')) > before ? true : undefined;
      },
      20_000,
      200,
    );

    // the owner dies without leaving the group: its partition stays assigned to it for the session
    // timeout, forwards to it fail, and the non-owner answers from Cassandra
    apps[1].signal('SIGKILL');
    await apps[1].waitForExit(10_000);
    const cassandraBefore = await answers(nonOwner, 'cassandra');
    const forwardedBefore = await answers(nonOwner, 'forwarded');
    expect(await usage(nonOwner, bucket)).toMatchObject(expected);
    expect(await usage(nonOwner, bucket)).toMatchObject(expected);
    expect(await answers(nonOwner, 'forwarded')).toBe(forwardedBefore);
    expect(await answers(nonOwner, 'cassandra')).toBe(cassandraBefore + 2);
  });
});
