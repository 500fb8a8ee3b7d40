import { randomUUID } from 'crypto';
import { mkdtemp, rm } from 'fs/promises';
import { cpus, loadavg, tmpdir } from 'os';
import { join } from 'path';
import { SystemClock } from '@ostore/shared/clock';
import { MetricsRegistry } from '@ostore/shared/observability';
import {
  CurrentUsageReader,
  LocalUsageState,
  OwnedWindows,
  StatsMetrics,
  usageStores,
} from '@ostore/stats/data-access';
import { combineSnapshots, emptyHostSnapshot, SnapshotAccumulator } from '@ostore/stats/snapshot';
import { SnapshotStore } from '@ostore/stats/snapshot-store';
import { benchKeyspace } from './bench-keyspace';

interface Options {
  buckets: number;
  queries: number;
  rounds: number;
  concurrency: number;
  port: number;
  keep: boolean;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { buckets: 50, queries: 2000, rounds: 3, concurrency: 1, port: 9042, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => Number(argv[++i]);
    if (a === '--buckets') o.buckets = v();
    else if (a === '--queries') o.queries = v();
    else if (a === '--rounds') o.rounds = v();
    else if (a === '--concurrency') o.concurrency = v();
    else if (a === '--port') o.port = v();
    else if (a === '--keep') o.keep = true;
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function main(argv: string[]): Promise<number> {
  const o = parseArgs(argv);
  const { client, keyspace, drop } = await benchKeyspace('usage', o.port, o.keep);
  const dir = await mkdtemp(join(tmpdir(), 'ostore-bench-usage-'));
  const local = await LocalUsageState.open(dir);
  try {
    const clock = new SystemClock();
    const retention = { eventsSeconds: 86_400, aggregatesSeconds: 86_400 };
    // this process reads the one partition all deltas come through, in one group generation
    const owned = new OwnedWindows({ generation: () => 1, owns: () => true });
    const stores = usageStores(
      client,
      clock,
      retention,
      new StatsMetrics(new MetricsRegistry('bench', false)),
      local,
      { owned },
    );
    const snapshots = new SnapshotStore(client, clock);
    const ids = Array.from({ length: o.buckets }, () => randomUUID());
    const start = Date.now() - 3_600_000;
    const acc = new SnapshotAccumulator(emptyHostSnapshot(start));
    ids.forEach((bucketId, b) =>
      acc.addObject({
        bucketId,
        bucket: `bench-${b}`,
        parent: '',
        name: 'o',
        noncurrent: [],
        current: {
          vts: (start - 7_200_000) * 1000,
          size: 1 << 20,
          storageClass: 'STANDARD',
          isDeleteMarker: false,
        },
      }),
    );
    await snapshots.saveCombination(
      keyspace,
      combineSnapshots([
        { source: 'bench', handler: 'versions', completedAt: new Date(), snapshot: acc.finish() },
      ])!,
    );
    const deltas = ids.flatMap((bucketId, b) =>
      Array.from({ length: 120 }, (_, i) => ({
        bucketId,
        bucket: `bench-${b}`,
        kind: 'store' as const,
        bytes: 1000,
        objects: 1,
        at: new Date(start + 5 * 60_000 + i * 28_000),
        source: 'gateway' as const,
        sourceHost: 'bench',
        eventId: randomUUID(),
      })),
    );
    for (let i = 0; i < deltas.length; i += 1000) {
      const batch = deltas.slice(i, i + 1000);
      await stores.recorder.record(batch, { partition: 0, firstOffset: i, nextOffset: i + batch.length });
    }
    // the reader as the stats app runs it (aggregates since the cut in memory for the partitions it
    // reads), the same without the memory (one read per answer), and one that reads every row each time
    const readers = {
      owned: new CurrentUsageReader(snapshots, stores, keyspace, clock, undefined, owned),
      cached: new CurrentUsageReader(snapshots, stores, keyspace, clock),
      uncached: new CurrentUsageReader(snapshots, stores, keyspace, clock, {
        combinationMs: 0,
        maxBuckets: 0,
      }),
    };
    // every reader answers every bucket exactly (this also seeds the owned reader's memory, once per bucket)
    for (const reader of Object.values(readers))
      for (const id of ids) {
        const check = await reader.current(id);
        if (check.bytes !== (1 << 20) + 120 * 1000 || check.objects !== 121)
          throw new Error(`unexpected usage ${JSON.stringify(check)}`);
      }

    const lines = [
      `machine: ${cpus().length} cores (${cpus()[0]?.model}), load average before ${loadavg()[0].toFixed(2)}`,
      `options: ${JSON.stringify(o)}`,
    ];
    const modes = ['owned', 'cached', 'uncached'] as const;
    const p50s = { owned: [] as number[], cached: [] as number[], uncached: [] as number[] };
    const p99s = { owned: [] as number[], cached: [] as number[], uncached: [] as number[] };
    for (let r = 0; r < o.rounds; r++)
      for (const mode of modes) {
        const reader = readers[mode];
        const ms: number[] = [];
        let next = 0;
        const worker = async () => {
          while (next++ < o.queries) {
            const t = process.hrtime.bigint();
            await reader.current(ids[Math.floor(Math.random() * ids.length)]);
            ms.push(Number(process.hrtime.bigint() - t) / 1e6);
          }
        };
        await Promise.all(Array.from({ length: o.concurrency }, worker));
        ms.sort((a, b) => a - b);
        p50s[mode].push(quantile(ms, 0.5));
        p99s[mode].push(quantile(ms, 0.99));
        lines.push(
          `round ${r + 1} ${mode}: ${ms.length} queries, p50 ${quantile(ms, 0.5).toFixed(2)} ms, p99 ${quantile(ms, 0.99).toFixed(2)} ms, max ${ms[ms.length - 1].toFixed(2)} ms (load ${loadavg()[0].toFixed(2)})`,
        );
      }
    for (const mode of modes)
      lines.push(
        `${mode}: median of ${o.rounds} rounds p50 ${median(p50s[mode]).toFixed(2)} ms, p99 ${median(p99s[mode]).toFixed(2)} ms`,
      );
    lines.push('');
    process.stdout.write(lines.join('\n'));
    return 0;
  } finally {
    await local.close();
    await rm(dir, { recursive: true, force: true });
    await drop();
  }
}
