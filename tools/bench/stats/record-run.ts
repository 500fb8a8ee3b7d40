import { randomBytes, randomUUID } from 'crypto';
import { cpus, loadavg } from 'os';
import { MigrationRunner, migrations, parseReplication } from '@ostore/metastore/schema';
import { UsageDelta } from '@ostore/queue/contracts';
import { CassandraClient, CassandraOptions, createDriverClient } from '@ostore/shared/cassandra';
import { SystemClock } from '@ostore/shared/clock';
import { MetricsRegistry } from '@ostore/shared/observability';
import { StatsMetrics, UsageRecorder, usageStores } from '@ostore/stats/data-access';

interface Options {
  events: number;
  buckets: number;
  batch: number;
  partitions: number;
  keep: boolean;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { events: 30_000, buckets: 50, batch: 1000, partitions: 3, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => Number(argv[++i]);
    if (a === '--events') o.events = v();
    else if (a === '--buckets') o.buckets = v();
    else if (a === '--batch') o.batch = v();
    else if (a === '--partitions') o.partitions = v();
    else if (a === '--keep') o.keep = true;
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

/** Deltas of one partition's share of the buckets, in batches of `size` (as one partition delivers them). */
function partitionBatches(o: Options, partition: number, now: number): UsageDelta[][] {
  const buckets = Array.from({ length: o.buckets }, (_, i) => i).filter(
    (i) => i % o.partitions === partition,
  );
  const ids = buckets.map(() => randomUUID());
  const perPartition = Math.floor(o.events / o.partitions);
  const deltas = Array.from({ length: perPartition }, (_, i) => {
    const b = i % ids.length;
    return {
      bucketId: ids[b],
      bucket: `bench-${partition}-${b}`,
      kind: 'store' as const,
      bytes: 1024 + (i % 4096),
      objects: 1,
      at: new Date(now - 3600_000 + Math.floor((i / perPartition) * 3600_000)),
      source: 'gateway' as const,
      sourceHost: 'bench',
      eventId: randomUUID(),
    };
  });
  const batches: UsageDelta[][] = [];
  for (let i = 0; i < deltas.length; i += o.batch) batches.push(deltas.slice(i, i + o.batch));
  return batches;
}

async function timed(
  recorder: UsageRecorder,
  partitions: UsageDelta[][][],
): Promise<{ seconds: number; events: number }> {
  const started = process.hrtime.bigint();
  let events = 0;
  await Promise.all(
    partitions.map(async (batches) => {
      for (const b of batches) {
        await recorder.record(b);
        events += b.length;
      }
    }),
  );
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, events };
}

export async function main(argv: string[]): Promise<number> {
  const o = parseArgs(argv);
  const keyspace = `bench_stats_${randomBytes(3).toString('hex')}`;
  const options: CassandraOptions = {
    contactPoints: ['127.0.0.1'],
    port: 9042,
    localDataCenter: 'datacenter1',
    keyspace,
    consistency: 'localQuorum',
    serialConsistency: 'localSerial',
    requestTimeoutMs: 12_000,
    applicationName: 'ostore-bench-stats',
  };
  const admin = createDriverClient(options, false);
  await admin.connect();
  await new MigrationRunner(admin).migrate(migrations, {
    keyspace,
    replication: parseReplication('SimpleStrategy:1'),
  });
  const client = new CassandraClient(options);
  await client.connect();
  try {
    const clock = new SystemClock();
    const retention = { eventsSeconds: 86_400, aggregatesSeconds: 86_400 };
    const { recorder } = usageStores(
      client,
      clock,
      retention,
      new StatsMetrics(new MetricsRegistry('bench', false)),
    );
    const now = Date.now();
    const partitions = Array.from({ length: o.partitions }, (_, p) => partitionBatches(o, p, now));
    const load = loadavg()[0].toFixed(2);
    const first = await timed(recorder, partitions);
    const replay = await timed(recorder, partitions);
    const line = (what: string, r: { seconds: number; events: number }) =>
      `${what}: ${r.events} deltas in ${r.seconds.toFixed(2)} s = ${Math.round(r.events / r.seconds)} deltas/s`;
    process.stdout.write(
      [
        `machine: ${cpus().length} cores (${cpus()[0]?.model}), load average before ${load}`,
        `options: ${JSON.stringify(o)}`,
        line('first delivery', first),
        line('replay (all duplicates)', replay),
        '',
      ].join('\n'),
    );
    return 0;
  } finally {
    await client.shutdown();
    if (!o.keep) await admin.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
    await admin.shutdown();
  }
}
