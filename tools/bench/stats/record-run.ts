import { randomUUID } from 'crypto';
import { mkdtemp, rm } from 'fs/promises';
import { cpus, loadavg, tmpdir } from 'os';
import { join } from 'path';
import { UsageDelta } from '@ostore/queue/contracts';
import { SystemClock } from '@ostore/shared/clock';
import { MetricsRegistry } from '@ostore/shared/observability';
import { BatchPosition, LocalUsageState, StatsMetrics, UsageRecorder, usageStores } from '@ostore/stats/data-access';
import { benchKeyspace } from './bench-keyspace';

interface Options {
  events: number;
  rounds: number;
  buckets: number;
  batch: number;
  partitions: number;
  keep: boolean;
  port: number;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { events: 300_000, rounds: 3, buckets: 50, batch: 1000, partitions: 3, keep: false, port: 9042 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => Number(argv[++i]);
    if (a === '--events') o.events = v();
    else if (a === '--rounds') o.rounds = v();
    else if (a === '--buckets') o.buckets = v();
    else if (a === '--batch') o.batch = v();
    else if (a === '--partitions') o.partitions = v();
    else if (a === '--keep') o.keep = true;
    else if (a === '--port') o.port = v();
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

interface Batch {
  deltas: UsageDelta[];
  position: BatchPosition;
}

/**
 * Deltas of one partition's share of the buckets, in batches of `size` at consecutive offsets (as
 * one partition delivers them), events of the last minute (as they arrive in production).
 */
function partitionBatches(o: Options, partition: number, ids: string[], now: number, offset: number): Batch[] {
  const perPartition = Math.floor(o.events / o.partitions);
  const deltas = Array.from({ length: perPartition }, (_, i) => {
    const b = i % ids.length;
    return {
      bucketId: ids[b],
      bucket: `bench-${partition}-${b}`,
      kind: 'store' as const,
      bytes: 1024 + (i % 4096),
      objects: 1,
      at: new Date(now - 60_000 + Math.floor((i / perPartition) * 60_000)),
      source: 'gateway' as const,
      sourceHost: 'bench',
      eventId: randomUUID(),
    };
  });
  const batches: Batch[] = [];
  for (let i = 0; i < deltas.length; i += o.batch) {
    const chunk = deltas.slice(i, i + o.batch);
    batches.push({
      deltas: chunk,
      position: { partition, firstOffset: offset + i, nextOffset: offset + i + chunk.length },
    });
  }
  return batches;
}

/** The same batches delivered again at later offsets (a producer's retry after a timeout). */
function republished(batches: Batch[], offset: number): Batch[] {
  return batches.map((b) => ({
    deltas: b.deltas,
    position: {
      partition: b.position.partition,
      firstOffset: b.position.firstOffset + offset,
      nextOffset: b.position.nextOffset + offset,
    },
  }));
}

async function timed(
  recorder: UsageRecorder,
  partitions: Batch[][],
): Promise<{ seconds: number; events: number; cpuSeconds: number }> {
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  let events = 0;
  await Promise.all(
    partitions.map(async (batches) => {
      for (const b of batches) {
        await recorder.record(b.deltas, b.position);
        events += b.deltas.length;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, events, cpuSeconds: (used.user + used.system) / 1e6 };
}

export async function main(argv: string[]): Promise<number> {
  const o = parseArgs(argv);
  const { client, drop } = await benchKeyspace('stats', o.port, o.keep);
  const dir = await mkdtemp(join(tmpdir(), 'ostore-bench-stats-'));
  const local = await LocalUsageState.open(dir);
  try {
    const clock = new SystemClock();
    const retention = { eventsSeconds: 86_400, aggregatesSeconds: 86_400 };
    const { recorder } = usageStores(
      client,
      clock,
      retention,
      new StatsMetrics(new MetricsRegistry('bench', false)),
      local,
    );
    const ids = Array.from({ length: o.buckets }, () => randomUUID());
    const share = (p: number) => ids.filter((_, i) => i % o.partitions === p);
    const load = loadavg()[0].toFixed(2);
    const line = (what: string, r: { seconds: number; events: number; cpuSeconds: number }) =>
      `${what}: ${r.events} deltas in ${r.seconds.toFixed(2)} s = ${Math.round(r.events / r.seconds)} deltas/s (stats process CPU ${r.cpuSeconds.toFixed(2)} s = ${Math.round((r.cpuSeconds / r.events) * 1e6)} µs/delta)`;
    const lines = [`machine: ${cpus().length} cores (${cpus()[0]?.model}), load average before ${load}`, `options: ${JSON.stringify(o)}`];
    const rates: number[] = [];
    const perRound = Math.floor(o.events / o.partitions);
    let offset = 0;
    let last: Batch[][] = [];
    for (let r = 0; r < o.rounds; r++) {
      const now = Date.now();
      last = Array.from({ length: o.partitions }, (_, p) => partitionBatches(o, p, share(p), now, offset));
      offset += perRound;
      const t = await timed(recorder, last);
      rates.push(t.events / t.seconds);
      lines.push(line(`round ${r + 1}`, t));
    }
    const replay = await timed(recorder, last.map((batches) => republished(batches, perRound)));
    lines.push(line('replay of the last round (all duplicates)', replay));
    const sorted = [...rates].sort((x, y) => x - y);
    lines.push(`median of ${o.rounds} rounds: ${Math.round(sorted[Math.floor(sorted.length / 2)])} deltas/s`);
    lines.push(`local store: ${local.entries.windows} windows, ${local.entries.events} dedup entries, ${await local.sizeOnDisk()} bytes on disk`, '');
    process.stdout.write(lines.join('\n'));
    return 0;
  } finally {
    await local.close();
    await rm(dir, { recursive: true, force: true });
    await drop();
  }
}
