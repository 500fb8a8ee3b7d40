import { randomUUID } from 'crypto';
import { mkdtemp, rm } from 'fs/promises';
import { cpus, loadavg, tmpdir } from 'os';
import { join } from 'path';
import { UsageDelta, usageDeltaMessage, usageDeltaOfMessage } from '@ostore/queue/contracts';
import { SystemClock } from '@ostore/shared/clock';
import { MetricsRegistry } from '@ostore/shared/observability';
import {
  BatchPosition,
  eventOfDelta,
  LocalUsageState,
  StatsMetrics,
  UsageEventStore,
  UsageRecorder,
  usageStores,
} from '@ostore/stats/data-access';
import { CURRENT_LAYOUT, EVENT_LAYOUTS } from '@ostore/stats/domain';
import { median } from '../lib/median';
import { readCpuTicks } from '../lib/proc';
import { benchKeyspace } from './bench-keyspace';

interface Options {
  events: number;
  rounds: number;
  buckets: number;
  batch: number;
  partitions: number;
  keep: boolean;
  port: number;
  /** Layout versions compared in one run, their rounds alternating (`--layouts 1,2`). */
  layouts: number[];
  /** The Cassandra node's pid: its CPU per delta is printed beside the stats process's. */
  cassandraPid?: number;
  /**
   * Also time, in the same rounds, the raw-event writes alone (UsageEventStore.write of the same
   * kind of deltas, no dedup, no local state, no aggregates): the floor one-row-per-event sets.
   */
  storeOnly: boolean;
  /**
   * Also decode each delta from its queue message inside the timed rounds, as the consumer does
   * (`fast`: usageDeltaOfMessage, the controller's reader; `schema`: the contract's zod reader).
   * Kafka's own decoding (kafkajs) is not in it.
   */
  decode?: 'fast' | 'schema';
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    events: 300_000,
    rounds: 3,
    buckets: 50,
    batch: 1000,
    partitions: 3,
    keep: false,
    port: 9042,
    layouts: [CURRENT_LAYOUT.version],
    storeOnly: false,
  };
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
    else if (a === '--layouts') o.layouts = argv[++i].split(',').map(Number);
    else if (a === '--cassandra-pid') o.cassandraPid = v();
    else if (a === '--store-only') o.storeOnly = true;
    else if (a === '--decode') {
      const how = argv[++i];
      if (how !== 'fast' && how !== 'schema') throw new Error('--decode fast|schema');
      o.decode = how;
    }
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

interface Batch {
  deltas: UsageDelta[];
  /** The deltas as queue messages, when the rounds decode them (`--decode`). */
  messages?: Buffer[];
  position: BatchPosition;
}

/**
 * Deltas of one partition's share of the buckets, in batches of `size` at consecutive offsets (as
 * one partition delivers them), events of the last minute (as they arrive in production).
 */
function partitionBatches(
  o: Options,
  partition: number,
  ids: string[],
  now: number,
  offset: number,
): Batch[] {
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
      ...(o.decode ? { messages: chunk.map((d) => Buffer.from(usageDeltaMessage(d))) } : {}),
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

interface Timed {
  seconds: number;
  events: number;
  cpuSeconds: number;
  /** CPU seconds of the Cassandra node over the same time, when its pid is known. */
  cassandraCpuSeconds?: number;
}

/** What a timed run feeds each batch to: the whole write path, or the raw-event store alone. */
type Sink = (b: Batch) => Promise<unknown>;

async function timed(sink: Sink, partitions: Batch[][], cassandraPid?: number): Promise<Timed> {
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const ticks = cassandraPid === undefined ? undefined : readCpuTicks(cassandraPid);
  let events = 0;
  await Promise.all(
    partitions.map(async (batches) => {
      for (const b of batches) {
        await sink(b);
        events += b.deltas.length;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  const ticksAfter = cassandraPid === undefined ? undefined : readCpuTicks(cassandraPid);
  return {
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
    events,
    cpuSeconds: (used.user + used.system) / 1e6,
    ...(ticks !== undefined && ticksAfter !== undefined
      ? { cassandraCpuSeconds: (ticksAfter - ticks) / 100 }
      : {}),
  };
}

interface Arm {
  version: number;
  recorder: UsageRecorder;
  events: UsageEventStore;
  local: LocalUsageState;
  dir: string;
  /** Its own buckets, the same every round (windows of the last minute continue locally). */
  ids: string[];
  /** Its own partition offsets, consecutive across its rounds (its local state keeps its lease). */
  offset: number;
  rates: number[];
  storeRates: number[];
  last: Batch[][];
}

function line(what: string, r: Timed): string {
  const us = (seconds: number) => Math.round((seconds / r.events) * 1e6);
  const cassandra =
    r.cassandraCpuSeconds === undefined
      ? ''
      : `; Cassandra CPU ${r.cassandraCpuSeconds.toFixed(2)} s = ${us(r.cassandraCpuSeconds)} µs/delta`;
  return `${what}: ${r.events} deltas in ${r.seconds.toFixed(2)} s = ${Math.round(r.events / r.seconds)} deltas/s (stats process CPU ${r.cpuSeconds.toFixed(2)} s = ${us(r.cpuSeconds)} µs/delta${cassandra})`;
}

export async function main(argv: string[]): Promise<number> {
  const o = parseArgs(argv);
  const { client, drop } = await benchKeyspace('stats', o.port, o.keep);
  const arms: Arm[] = [];
  try {
    const clock = new SystemClock();
    const retention = { eventsSeconds: 86_400, aggregatesSeconds: 86_400 };
    for (const version of o.layouts) {
      const layout = EVENT_LAYOUTS.find((l) => l.version === version);
      if (!layout) throw new Error(`unknown layout ${version}`);
      const dir = await mkdtemp(join(tmpdir(), 'ostore-bench-stats-'));
      const local = await LocalUsageState.open(dir);
      const metrics = new StatsMetrics(new MetricsRegistry('bench', false));
      const { recorder, events } = usageStores(client, clock, retention, metrics, local, { layout });
      arms.push({
        version,
        recorder,
        events,
        local,
        dir,
        ids: Array.from({ length: o.buckets }, () => randomUUID()),
        offset: 0,
        rates: [],
        storeRates: [],
        last: [],
      });
    }
    const lines = [
      `machine: ${cpus().length} cores (${cpus()[0]?.model}), load average before ${loadavg()[0].toFixed(2)}`,
      `options: ${JSON.stringify(o)}`,
    ];
    const perRound = Math.floor(o.events / o.partitions);
    for (let r = 0; r < o.rounds; r++) {
      // alternate which layout goes first, so neither always runs on the warmer node
      const order = r % 2 === 0 ? arms : [...arms].reverse();
      for (const arm of order) {
        const share = (p: number) => arm.ids.filter((_, i) => i % o.partitions === p);
        const now = Date.now();
        arm.last = Array.from({ length: o.partitions }, (_, p) =>
          partitionBatches(o, p, share(p), now, arm.offset),
        );
        arm.offset += perRound;
        const read = o.decode === 'schema' ? (m: Buffer) => UsageDelta.fromMessage(m) : usageDeltaOfMessage;
        const t = await timed(
          (b) => arm.recorder.record(b.messages ? b.messages.map(read) : b.deltas, b.position),
          arm.last,
          o.cassandraPid,
        );
        arm.rates.push(t.events / t.seconds);
        lines.push(line(`layout ${arm.version} round ${r + 1}`, t));
        if (o.storeOnly) {
          const fresh = Array.from({ length: o.partitions }, (_, p) => partitionBatches(o, p, share(p), Date.now(), 0));
          const s = await timed((b) => arm.events.write(b.deltas.map(eventOfDelta)), fresh, o.cassandraPid);
          arm.storeRates.push(s.events / s.seconds);
          lines.push(line(`layout ${arm.version} round ${r + 1}, raw-event writes alone`, s));
        }
      }
    }
    for (const arm of arms) {
      const replay = await timed(
        (b) => arm.recorder.record(b.deltas, b.position),
        arm.last.map((batches) => republished(batches, perRound)),
        o.cassandraPid,
      );
      lines.push(line(`layout ${arm.version} replay of its last round (all duplicates)`, replay));
    }
    for (const arm of arms)
      lines.push(
        `layout ${arm.version}: median of ${o.rounds} rounds ${Math.round(median(arm.rates))} deltas/s${o.storeOnly ? ` (raw-event writes alone: ${Math.round(median(arm.storeRates))} events/s)` : ''}; local store ${arm.local.entries.windows} windows, ${arm.local.entries.events} dedup entries, ${await arm.local.sizeOnDisk()} bytes on disk; dedup filters ${JSON.stringify(arm.local.filtered)}`,
      );
    if (arms.length === 2) {
      const ratios = arms[1].rates.map((x, i) => x / arms[0].rates[i]);
      lines.push(
        `rate ratio layout ${arms[1].version} / layout ${arms[0].version} per round: ${ratios.map((x) => x.toFixed(2)).join(' ')} (median ${median(ratios).toFixed(2)})`,
      );
    }
    lines.push('');
    process.stdout.write(lines.join('\n'));
    return 0;
  } finally {
    for (const arm of arms) {
      await arm.local.close();
      await rm(arm.dir, { recursive: true, force: true });
    }
    await drop();
  }
}
