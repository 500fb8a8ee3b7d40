import { randomBytes, randomUUID } from 'crypto';
import { rmSync } from 'fs';
import { cpus, loadavg, tmpdir } from 'os';
import { join } from 'path';
import { usageDeltaMessage } from '@ostore/queue/contracts';
import { KafkaClient, KafkaUsageSink, usagePartitionOf } from '@ostore/queue/data-access';
import { SystemClock } from '@ostore/shared/clock';
import { emptyHostSnapshot, SnapshotAccumulator } from '@ostore/stats/snapshot';
import { SnapshotStore } from '@ostore/stats/snapshot-store';
import { waitFor } from '@ostore/testing';
import { benchKeyspace } from './bench-keyspace';
import {
  Build,
  commitBuild,
  currentBuild,
  ownStack,
  OwnStack,
  scrape,
  StatsProcess,
  swcBuild,
  UsageClient,
} from './current-usage-http-apps';

interface Options {
  /** `own`: start a private stack and purge it at the end; `given`: use --cassandra-port / --kafka. */
  stack: 'own' | 'given';
  stackPort: number;
  cassandraPort: number;
  kafka: string;
  baselines: string[];
  /** Also this checkout under the TypeScript loader. */
  swc: boolean;
  buckets: number;
  queries: number;
  rounds: number;
  basePort: number;
  consumeRate: number;
  /** Longest a mode of one build may take in a round: its queries stop there (a loaded box must not stretch the run). */
  modeSeconds: number;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    stack: 'own',
    stackPort: 39142,
    cassandraPort: 9042,
    kafka: '127.0.0.1:9092',
    baselines: [],
    swc: false,
    buckets: 20,
    queries: 3000,
    rounds: 3,
    basePort: 27100,
    consumeRate: 2000,
    modeSeconds: 15,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => argv[++i];
    if (a === '--cassandra-port') o.cassandraPort = Number(v());
    else if (a === '--kafka') o.kafka = v();
    else if (a === '--stack-port') o.stackPort = Number(v());
    else if (a === '--baseline') o.baselines.push(v());
    else if (a === '--swc') o.swc = true;
    else if (a === '--buckets') o.buckets = Number(v());
    else if (a === '--queries') o.queries = Number(v());
    else if (a === '--rounds') o.rounds = Number(v());
    else if (a === '--base-port') o.basePort = Number(v());
    else if (a === '--consume-rate') o.consumeRate = Number(v());
    else if (a === '--mode-seconds') o.modeSeconds = Number(v());
    else throw new Error(`unknown option ${a}`);
    if (a === '--cassandra-port' || a === '--kafka') o.stack = 'given';
  }
  return o;
}

const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const MODES = ['owner', 'non-owner routed', 'non-owner local', 'service', 'service, consuming'] as const;
type Mode = (typeof MODES)[number];
const FORWARDED = { 'x-ostore-stats-forwarded': '1' };
const DELTAS_PER_BUCKET = 120;

/** One build's pair of replicas in a consumer group of its own (its own topic), with its buckets. */
interface Pair {
  build: Build;
  kafka: KafkaClient;
  apps: StatsProcess[];
  buckets: { id: string; owner: number }[];
}

interface Sample {
  p50: number;
  p99: number;
  p999: number;
  max: number;
  cpuUsPerRequest: number;
  loopP99Ms: number;
  loopMaxMs: number;
  consumedPerSecond: number;
}

const deltas = (bucketId: string, count: number, start: number) =>
  Array.from({ length: count }, (_, i) => ({
    key: bucketId,
    value: usageDeltaMessage({
      bucketId,
      bucket: 'bench',
      kind: 'store',
      bytes: 1000,
      objects: 1,
      at: new Date(start + i * 10_000),
      source: 'gateway',
      sourceHost: 'bench',
      eventId: randomUUID(),
    }),
  }));

/** Deltas of other buckets at `rate` per second while it runs: the consumption beside the queries. */
function background(kafka: KafkaClient, rate: number): { stop: () => Promise<void> } {
  const ids = Array.from({ length: 200 }, () => randomUUID());
  const sink = new KafkaUsageSink(kafka);
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const t = Date.now();
      const batch = Array.from(
        { length: Math.max(1, Math.round(rate / 10)) },
        () => deltas(ids[Math.floor(Math.random() * ids.length)], 1, t)[0],
      );
      await sink.send(batch);
      await new Promise((r) => setTimeout(r, Math.max(0, 100 - (Date.now() - t))));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

export async function main(argv: string[]): Promise<number> {
  const o = parseArgs(argv);
  const started = Date.now();
  const builds = [...o.baselines.map(commitBuild), ...(o.swc ? [swcBuild()] : []), currentBuild()];
  let stack: OwnStack | undefined;
  if (o.stack === 'own') {
    stack = await ownStack(o.stackPort);
    o.cassandraPort = stack.cassandraPort;
    o.kafka = stack.kafka;
  }
  const client = new UsageClient();
  const pairs: Pair[] = [];
  const dataDirs: string[] = [];
  let inexact = 0;
  let ks: Awaited<ReturnType<typeof benchKeyspace>> | undefined;
  try {
    ks = await benchKeyspace('usagehttp', o.cassandraPort, false);
    const passTs = new Date(Date.now() - 30 * 60_000);
    await new SnapshotStore(ks.client, new SystemClock()).saveHostSnapshot(ks.keyspace, {
      source: 'bench',
      handler: 'versions',
      passTs,
      snapshot: new SnapshotAccumulator(emptyHostSnapshot(passTs.getTime())).finish(),
    });
    for (const [v, build] of builds.entries()) {
      const cluster = `benchroute${randomBytes(3).toString('hex')}`;
      const kafka = new KafkaClient({
        brokers: o.kafka.split(','),
        clientId: 'bench-route',
        cluster,
        partitions: 3,
        replicationFactor: 1,
      });
      await kafka.ensureTopic('usage');
      const apps = [0, 1].map((i) => {
        const port = o.basePort + 2 * v + i;
        const url = `http://127.0.0.1:${port}`;
        const dir = join(tmpdir(), `ostore-bench-route-${cluster}-${i}`);
        dataDirs.push(dir);
        return new StatsProcess(
          build,
          url,
          {
            OSTORE_CLUSTER: cluster,
            CASSANDRA_CONTACT_POINTS: '127.0.0.1',
            CASSANDRA_PORT: String(o.cassandraPort),
            CASSANDRA_KEYSPACE: ks!.keyspace,
            KAFKA_BROKERS: o.kafka,
            KAFKA_TOPIC_PARTITIONS: '3',
            MANAGEMENT_PORT: String(port),
            MANAGEMENT_HOST: '127.0.0.1',
            STATS_ADVERTISED_URL: url,
            STATS_DATA_DIR: dir,
            // as deployed (deploy/k8s/base/configmap.yaml); the snapshot combination at its default
            // interval (60 s, and at boot: the pass saved above is combined then)
            LOG_LEVEL: 'info',
          },
          `${dir}.log`,
        ).start();
      });
      pairs.push({ build, kafka, apps, buckets: [] });
    }
    const start = passTs.getTime() + 60_000;
    for (const pair of pairs) {
      const urls = pair.apps.map((a) => a.url);
      const group = await waitFor(
        `both ${pair.build.label} apps hold partitions`,
        async () => {
          if (pair.apps.some((a) => !a.running))
            throw new Error(`a ${pair.build.label} app exited: see ${dataDirs.join(', ')} (.log)`);
          const g = await pair.kafka.groupAssignment('usage', 'stats');
          return g.stable &&
            g.members.filter((m) => urls.includes(m.data) && m.partitions.length).length === 2
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
      for (const want of [0, 1])
        while (pair.buckets.filter((b) => b.owner === want).length < o.buckets / 2) {
          const id = randomUUID();
          if (ownerOf(id) === want) pair.buckets.push({ id, owner: want });
        }
      const messages = pair.buckets.flatMap((b) => deltas(b.id, DELTAS_PER_BUCKET, start));
      const sink = new KafkaUsageSink(pair.kafka);
      for (let i = 0; i < messages.length; i += 500) await sink.send(messages.slice(i, i + 500));
    }
    const ask = async (url: string, id: string, local: boolean) => {
      const res = await client.get(url, `/usage/buckets/${id}`, local ? FORWARDED : {});
      if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}`);
      return JSON.parse(res.body) as { bytes: number; objects: number; cut?: string };
    };
    const consumedBy = async (pair: Pair) =>
      (await Promise.all(pair.apps.map((a) => scrape(client, a.url)))).reduce(
        (n, m) => n + m('ostore_stats_usage_events_consumed_total'),
        0,
      );
    const exact = (u: { bytes: number; objects: number; cut?: string }) =>
      u.bytes === DELTAS_PER_BUCKET * 1000 && u.objects === DELTAS_PER_BUCKET && u.cut !== undefined;
    // every answer exact in every mode before timing (this also seeds the owners' memory)
    for (const pair of pairs)
      await waitFor(
        `every ${pair.build.label} bucket answered exactly, with the combined snapshot, by both apps`,
        async () => {
          for (const b of pair.buckets)
            for (const [at, local] of [
              [b.owner, false],
              [1 - b.owner, false],
              [1 - b.owner, true],
            ] as const)
              if (!exact(await ask(pair.apps[at].url, b.id, local))) return undefined;
          return true;
        },
        120_000,
        250,
      );

    progress('every answer exact in every mode; timing');
    const lines = [
      `machine: ${cpus().length} cores (${cpus()[0]?.model}), load average before ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
      `builds: ${builds.map((b) => `${b.label} = ${b.commit}`).join('; ')} (node --enable-source-maps dist/apps/stats/src/main.js unless under swc, LOG_LEVEL=info)`,
      `options: ${JSON.stringify(o)}`,
    ];
    const samples = new Map<string, Sample[]>();
    const key = (b: Build, m: Mode) => `${b.label}\t${m}`;
    for (let r = 0; r < o.rounds; r++)
      for (const mode of MODES)
        // the builds take turns, in a different order each round
        for (let k = 0; k < pairs.length; k++) {
          const pair = pairs[(k + r) % pairs.length];
          const [a0, a1] = pair.apps;
          const bg = mode === 'service, consuming' ? background(pair.kafka, o.consumeRate) : undefined;
          if (bg) await new Promise((res) => setTimeout(res, 1000));
          // scraping resets prom-client's event-loop delay histogram: what is read after the queries is theirs
          const consumed0 = await consumedBy(pair);
          const cpu0 = a0.cpuSeconds() + a1.cpuSeconds();
          const t0 = process.hrtime.bigint();
          const ms: number[] = [];
          const until = Date.now() + o.modeSeconds * 1000;
          for (let q = 0; q < o.queries && Date.now() < until; q++) {
            const b = pair.buckets[Math.floor(Math.random() * pair.buckets.length)];
            const at =
              mode === 'owner'
                ? b.owner
                : mode.startsWith('service')
                  ? Math.floor(Math.random() * 2)
                  : 1 - b.owner;
            const t = process.hrtime.bigint();
            const u = await ask(pair.apps[at].url, b.id, mode === 'non-owner local');
            ms.push(Number(process.hrtime.bigint() - t) / 1e6);
            if (!exact(u)) inexact++;
          }
          const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
          const cpu = a0.cpuSeconds() + a1.cpuSeconds() - cpu0;
          // prom-client's histogram times a 10 ms timer: the delay is what exceeds it
          const loop = (await Promise.all(pair.apps.map((a) => scrape(client, a.url)))).map((m) => ({
            p99: Math.max(0, m('nodejs_eventloop_lag_p99_seconds') * 1000 - 10),
            max: Math.max(0, m('nodejs_eventloop_lag_max_seconds') * 1000 - 10),
          }));
          await bg?.stop();
          const consumed = (await consumedBy(pair)) - consumed0;
          ms.sort((x, y) => x - y);
          const s: Sample = {
            p50: quantile(ms, 0.5),
            p99: quantile(ms, 0.99),
            p999: quantile(ms, 0.999),
            max: ms[ms.length - 1],
            cpuUsPerRequest: (cpu * 1e6) / ms.length,
            loopP99Ms: Math.max(loop[0].p99, loop[1].p99),
            loopMaxMs: Math.max(loop[0].max, loop[1].max),
            consumedPerSecond: consumed / seconds,
          };
          samples.set(key(pair.build, mode), [...(samples.get(key(pair.build, mode)) ?? []), s]);
          lines.push(
            `round ${r + 1} ${pair.build.label} ${mode}: ${ms.length} queries, p50 ${s.p50.toFixed(2)} p99 ${s.p99.toFixed(2)} p99.9 ${s.p999.toFixed(2)} max ${s.max.toFixed(2)} ms; apps' CPU ${s.cpuUsPerRequest.toFixed(0)} µs/request; event-loop delay p99 ${s.loopP99Ms.toFixed(1)} max ${s.loopMaxMs.toFixed(1)} ms; consumed ${s.consumedPerSecond.toFixed(0)}/s (load ${loadavg()[0].toFixed(2)})`,
          );
          progress(lines[lines.length - 1]);
        }
    lines.push(
      '',
      `medians of ${o.rounds} rounds, ${o.queries} queries each:`,
      '| build | mode | p50 ms | p99 ms | p99.9 ms | max ms | apps CPU µs/request | event-loop delay p99 / max ms | consumed/s |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const pair of pairs)
      for (const mode of MODES) {
        const ss = samples.get(key(pair.build, mode)) ?? [];
        const m = (f: (s: Sample) => number, d = 2) => median(ss.map(f)).toFixed(d);
        lines.push(
          `| ${pair.build.label} (${pair.build.commit}) | ${mode} | ${m((s) => s.p50)} | ${m((s) => s.p99)} | ${m((s) => s.p999)} | ${m((s) => s.max)} | ${m((s) => s.cpuUsPerRequest, 0)} | ${m((s) => s.loopP99Ms, 1)} / ${m((s) => s.loopMaxMs, 1)} | ${m((s) => s.consumedPerSecond, 0)} |`,
        );
      }
    if (pairs.length > 1) {
      const last = pairs[pairs.length - 1];
      lines.push(
        '',
        `ratios ${last.build.label} / other build, median of the rounds' ratios (p50, p99, CPU per request):`,
      );
      for (const other of pairs.slice(0, -1))
        for (const mode of MODES) {
          const a = samples.get(key(last.build, mode)) ?? [];
          const b = samples.get(key(other.build, mode)) ?? [];
          const ratio = (f: (s: Sample) => number) => median(a.map((s, i) => f(s) / f(b[i]))).toFixed(2);
          lines.push(
            `${mode} vs ${other.build.label}: p50 ${ratio((s) => s.p50)}x, p99 ${ratio((s) => s.p99)}x, CPU ${ratio((s) => s.cpuUsPerRequest)}x`,
          );
        }
    }
    for (const pair of pairs)
      for (const [i, a] of pair.apps.entries()) {
        const m = await scrape(client, a.url);
        const answers = (path: string) => m('ostore_stats_current_usage_answers_total', `path="${path}"`);
        lines.push(
          `${pair.build.label} app ${i} answers: memory ${answers('memory')}, cassandra ${answers('cassandra')}, forwarded ${answers('forwarded')}`,
        );
      }
    lines.push(
      `inexact answers: ${inexact}`,
      `load average after ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
      `bench time ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    process.stdout.write(lines.join('\n') + '\n');
    return inexact === 0 ? 0 : 1;
  } finally {
    for (const p of pairs) for (const a of p.apps) await a.stop();
    for (const p of pairs) await p.kafka.close();
    client.close();
    await ks?.drop();
    for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
    await stack?.down();
  }
}
