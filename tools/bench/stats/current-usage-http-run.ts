import { randomBytes, randomUUID } from 'crypto';
import { cpus, loadavg } from 'os';
import { usageDeltaMessage } from '@ostore/queue/contracts';
import { KafkaClient, KafkaUsageSink, usagePartitionOf } from '@ostore/queue/data-access';
import { SystemClock } from '@ostore/shared/clock';
import { emptyHostSnapshot, SnapshotAccumulator } from '@ostore/stats/snapshot';
import { SnapshotStore } from '@ostore/stats/snapshot-store';
import { AppProcess, metricSum, waitFor } from '@ostore/testing';
import { benchKeyspace } from './bench-keyspace';

interface Options {
  cassandraPort: number;
  kafka: string;
  buckets: number;
  queries: number;
  rounds: number;
  basePort: number;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    cassandraPort: 9042,
    kafka: '127.0.0.1:9092',
    buckets: 20,
    queries: 2000,
    rounds: 3,
    basePort: 27100,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => argv[++i];
    if (a === '--cassandra-port') o.cassandraPort = Number(v());
    else if (a === '--kafka') o.kafka = v();
    else if (a === '--buckets') o.buckets = Number(v());
    else if (a === '--queries') o.queries = Number(v());
    else if (a === '--rounds') o.rounds = Number(v());
    else if (a === '--base-port') o.basePort = Number(v());
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const MODES = ['owner', 'non-owner routed', 'non-owner local', 'service'] as const;
type Mode = (typeof MODES)[number];

export async function main(argv: string[]): Promise<number> {
  const o = parseArgs(argv);
  const { client, keyspace, drop } = await benchKeyspace('usagehttp', o.cassandraPort, false);
  const cluster = `benchroute${randomBytes(3).toString('hex')}`;
  const kafka = new KafkaClient({
    brokers: o.kafka.split(','),
    clientId: 'bench-route',
    cluster,
    partitions: 3,
    replicationFactor: 1,
  });
  const urls = [0, 1].map((i) => `http://127.0.0.1:${o.basePort + i}`);
  const apps: AppProcess[] = [];
  try {
    const passTs = new Date(Date.now() - 30 * 60_000);
    await new SnapshotStore(client, new SystemClock()).saveHostSnapshot(keyspace, {
      source: 'bench',
      handler: 'versions',
      passTs,
      snapshot: new SnapshotAccumulator(emptyHostSnapshot(passTs.getTime())).finish(),
    });
    await kafka.ensureTopic('usage');
    for (const [i, url] of urls.entries())
      apps.push(
        new AppProcess('stats', {
          OSTORE_CLUSTER: cluster,
          CASSANDRA_CONTACT_POINTS: '127.0.0.1',
          CASSANDRA_PORT: String(o.cassandraPort),
          CASSANDRA_KEYSPACE: keyspace,
          KAFKA_BROKERS: o.kafka,
          KAFKA_TOPIC_PARTITIONS: '3',
          MANAGEMENT_PORT: String(o.basePort + i),
          MANAGEMENT_HOST: '127.0.0.1',
          STATS_ADVERTISED_URL: url,
          STATS_SNAPSHOT_COMBINE_SECONDS: '1',
          STATS_DATA_DIR: `/tmp/ostore-bench-route-${cluster}-${i}`,
          LOG_LEVEL: 'warn',
        }).start(),
      );
    const group = await waitFor(
      'both apps hold partitions',
      async () => {
        const g = await kafka.groupAssignment('usage', 'stats');
        return g.stable && g.members.filter((m) => urls.includes(m.data) && m.partitions.length).length === 2
          ? g
          : undefined;
      },
      120_000,
      250,
    );
    const ownerOf = (b: string) =>
      urls.indexOf(
        group.members.find((m) => m.partitions.includes(usagePartitionOf(b, group.partitionCount)))!.data,
      );
    const buckets: { id: string; owner: number }[] = [];
    for (const want of [0, 1])
      while (buckets.filter((b) => b.owner === want).length < o.buckets / 2) {
        const id = randomUUID();
        if (ownerOf(id) === want) buckets.push({ id, owner: want });
      }
    const start = passTs.getTime() + 60_000;
    const messages = buckets.flatMap((b) =>
      Array.from({ length: 120 }, (_, i) => ({
        key: b.id,
        value: usageDeltaMessage({
          bucketId: b.id,
          bucket: 'bench',
          kind: 'store',
          bytes: 1000,
          objects: 1,
          at: new Date(start + i * 10_000),
          source: 'gateway',
          sourceHost: 'bench',
          eventId: randomUUID(),
        }),
      })),
    );
    const sink = new KafkaUsageSink(kafka);
    for (let i = 0; i < messages.length; i += 500) await sink.send(messages.slice(i, i + 500));
    await waitFor(
      'every delta consumed',
      async () => {
        const n =
          (await metricSum(urls[0], 'ostore_stats_usage_events_consumed_total')) +
          (await metricSum(urls[1], 'ostore_stats_usage_events_consumed_total'));
        return n === messages.length ? true : undefined;
      },
      120_000,
      250,
    );
    const ask = async (url: string, id: string, local: boolean) => {
      const res = await fetch(
        `${url}/usage/buckets/${id}`,
        local ? { headers: { 'x-ostore-stats-forwarded': '1' } } : undefined,
      );
      if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}`);
      return (await res.json()) as { bytes: number; objects: number; cut?: string };
    };
    // every answer exact in every mode before timing (this also seeds the owners' memory)
    await waitFor(
      'every bucket answered exactly, with the combined snapshot, by both apps',
      async () => {
        for (const b of buckets)
          for (const [url, local] of [
            [urls[b.owner], false],
            [urls[1 - b.owner], false],
            [urls[1 - b.owner], true],
          ] as const) {
            const u = await ask(url, b.id, local);
            if (u.bytes !== 120_000 || u.objects !== 120 || !u.cut) return undefined;
          }
        return true;
      },
      60_000,
      250,
    );

    const lines = [
      `machine: ${cpus().length} cores (${cpus()[0]?.model}), load average before ${loadavg()[0].toFixed(2)}`,
      `options: ${JSON.stringify(o)}`,
    ];
    const p50s = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
    const p99s = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
    for (let r = 0; r < o.rounds; r++)
      for (const mode of MODES) {
        const ms: number[] = [];
        for (let q = 0; q < o.queries; q++) {
          const b = buckets[Math.floor(Math.random() * buckets.length)];
          const at =
            mode === 'owner' ? b.owner : mode === 'service' ? Math.floor(Math.random() * 2) : 1 - b.owner;
          const t = process.hrtime.bigint();
          await ask(urls[at], b.id, mode === 'non-owner local');
          ms.push(Number(process.hrtime.bigint() - t) / 1e6);
        }
        ms.sort((a, b) => a - b);
        p50s.get(mode)!.push(quantile(ms, 0.5));
        p99s.get(mode)!.push(quantile(ms, 0.99));
        lines.push(
          `round ${r + 1} ${mode}: ${ms.length} queries, p50 ${quantile(ms, 0.5).toFixed(2)} ms, p99 ${quantile(ms, 0.99).toFixed(2)} ms, max ${ms[ms.length - 1].toFixed(2)} ms (load ${loadavg()[0].toFixed(2)})`,
        );
      }
    for (const mode of MODES)
      lines.push(
        `median of ${o.rounds} rounds ${mode}: p50 ${median(p50s.get(mode)!).toFixed(2)} ms, p99 ${median(p99s.get(mode)!).toFixed(2)} ms`,
      );
    const answers = async (url: string, path: string) => {
      const text = await (await fetch(`${url}/metrics`)).text();
      return text
        .split('\n')
        .filter(
          (l) => l.startsWith('ostore_stats_current_usage_answers_total{') && l.includes(`path="${path}"`),
        )
        .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
    };
    for (const [i, url] of urls.entries())
      lines.push(
        `app ${i} answers: memory ${await answers(url, 'memory')}, cassandra ${await answers(url, 'cassandra')}, forwarded ${await answers(url, 'forwarded')}`,
      );
    lines.push(
      `load average after ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    process.stdout.write(lines.join('\n') + '\n');
    return 0;
  } finally {
    for (const a of apps) await a.stop();
    await kafka.close();
    await drop();
  }
}
