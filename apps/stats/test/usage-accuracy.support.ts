import { mkdtemp, rm } from 'fs/promises';
import { tmpdir } from 'os';
import { join } from 'path';
import { KafkaClient } from '@ostore/queue/data-access';
import { UsageRecordOnTopic, UsageTopicReader } from '@ostore/queue/data-access/testing';
import { cutOf } from '@ostore/stats/snapshot';
import { appEnv, AppProcess, freePort, freshCluster, metricSum, stackEnv, waitFor } from '@ostore/testing';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the drill starts the whole system (gateway, scanner, scheduler) with the scheduler's own test helper, as deploy/test does
import { LifecycleSystem, startLifecycleSystem } from '../../scheduler/test/lifecycle-system';
import { MAX_BODY, Span } from './usage-accuracy.workload';

/** Bytes and objects of a bucket. */
export interface Usage {
  bytes: number;
  objects: number;
}

/** What one comparison of the stats app's current usage with the recount found. */
export interface Comparison {
  bucket: string;
  stats: StatsUsage;
  recount: Usage;
  /** `exact`: no snapshot cut after the bucket's first write, so the two must be equal. */
  rule: 'exact' | 'bound';
  /** The allowed range of stats − recount (README "Snapshots", "How exact"). */
  allowed: { bytes: [number, number]; objects: [number, number] };
  /**
   * With the `bound` rule: when the scanner's first passes at the cut ended (ms after the cut),
   * when the older of the passes the combination used completed (ms after the cut, from the
   * answer's snapshot age: whole seconds), the bytes removed between the cut and the first
   * passes' end (the lower bound's main term), and those removed since the cut up to the
   * comparison (the earlier, looser bound's term).
   */
  window?: {
    passesEndMs: number;
    usedPassEndMs?: number;
    removedBytes: number;
    removedBytesSinceCut: number;
  };
  ok: boolean;
}

/** The stats app's answer (`GET /usage/buckets/:bucketId`). */
export type StatsUsage = Usage & {
  cut?: string;
  deltaEvents?: number;
  snapshotAgeSeconds?: number;
  asOf?: string;
};

const PARTITIONS = 3;

/**
 * The whole system of the accuracy spec over one keyspace and one cluster (so every producer of
 * usage deltas writes the topic the stats app reads): gateway, scanner (a pass every second,
 * snapshots on), scheduler (lifecycle day of 10 s), the stats app (combining snapshots every
 * second), and a reader of the whole usage topic (the input, to compute the documented bound).
 */
export class AccuracySystem {
  stats!: AppProcess;
  /** Why the last caughtUp() said no. */
  lag = '';
  private constructor(
    readonly lc: LifecycleSystem,
    readonly cluster: string,
    readonly kafka: KafkaClient,
    readonly topic: UsageTopicReader,
    readonly statsPort: number,
    readonly dataDir: string,
  ) {}

  static async start(): Promise<AccuracySystem> {
    const cluster = freshCluster('accuracy');
    const same = {
      OSTORE_CLUSTER: cluster,
      KAFKA_TOPIC_PARTITIONS: String(PARTITIONS),
      USAGE_LINGER_MS: '20',
    };
    const lc = await startLifecycleSystem('kafka', { gateway: same, scanner: same, scheduler: same });
    const kafka = new KafkaClient({
      brokers: stackEnv().kafkaBrokers,
      clientId: 'accuracy-spec',
      cluster,
      partitions: PARTITIONS,
      replicationFactor: 1,
    });
    await kafka.ensureTopic('usage');
    const topic = await UsageTopicReader.start(kafka);
    const dataDir = await mkdtemp(join(tmpdir(), 'ostore-stats-acc-'));
    const sys = new AccuracySystem(
      lc,
      cluster,
      kafka,
      topic,
      // the kernel's choice: a drawn port could be one the lifecycle system's gateways already have
      await freePort(),
      dataDir,
    );
    await lc.ready();
    await sys.startStats();
    return sys;
  }

  /** Starts the stats app (again) on the same port and local store directory. */
  async startStats(): Promise<void> {
    this.stats = new AppProcess('stats', {
      ...appEnv(this.lc.gateway.keyspace, this.cluster),
      MANAGEMENT_PORT: String(this.statsPort),
      MANAGEMENT_HOST: '127.0.0.1',
      MIGRATE_ON_START: 'false',
      KAFKA_TOPIC_PARTITIONS: String(PARTITIONS),
      STATS_BATCH_SIZE: '50',
      STATS_SNAPSHOT_COMBINE_SECONDS: '1',
      STATS_DATA_DIR: this.dataDir,
      SHUTDOWN_TIMEOUT_MS: '10000',
    }).start();
    const p = this.stats;
    await waitFor(
      'the stats app ready',
      async () => {
        if (p.exitCode !== undefined)
          throw new Error(`stats exited (${p.exitCode}):\n${p.output.join('').slice(-4000)}`);
        const res = await fetch(`http://127.0.0.1:${this.statsPort}/health/ready`);
        await res.text();
        return res.status === 200 ? true : undefined;
      },
      90_000,
      250,
    );
  }

  /** SIGKILL: nothing committed at the end, no graceful close; `dropStore` also deletes its local store. */
  async killStats(dropStore: boolean): Promise<void> {
    this.stats.signal('SIGKILL');
    await this.stats.waitForExit(10_000);
    if (dropStore) await rm(this.dataDir, { recursive: true, force: true });
  }

  async stop(): Promise<void> {
    await this.stats?.stop();
    await this.topic?.close();
    await this.kafka?.close();
    await this.lc?.stop();
    await rm(this.dataDir, { recursive: true, force: true });
  }

  /** The admin API's usage of a bucket without a quota, without ADMIN_STATS_URL: an exact recount of the metastore. */
  async recount(bucket: string): Promise<Usage & { bucketId: string }> {
    const gw = this.lc.gateway;
    const res = await fetch(`${gw.adminUrl}/admin/buckets/${bucket}/usage`, {
      headers: { authorization: `Bearer ${gw.adminToken}` },
    });
    const body = (await res.json()) as { bucketId: string; bytes: number; objects: number; source: string };
    if (res.status !== 200 || body.source !== 'recount')
      throw new Error(`admin usage of ${bucket}: ${res.status} ${JSON.stringify(body)}`);
    return { bucketId: body.bucketId, bytes: body.bytes, objects: body.objects };
  }

  /** `GET /usage/buckets/:bucketId` of the stats app's management port. */
  async current(bucketId: string): Promise<StatsUsage> {
    const res = await fetch(`http://127.0.0.1:${this.statsPort}/usage/buckets/${bucketId}`);
    if (res.status !== 200) throw new Error(`stats usage: ${res.status} ${await res.text()}`);
    return (await res.json()) as StatsUsage;
  }

  /**
   * Every delta produced has reached the stats app: the gateway's and scheduler's publishers hold
   * none, our reader has the whole topic, and the stats app's group (`<topic>.stats`) has committed
   * up to its end (it commits a batch only once recorded).
   */
  async caughtUp(): Promise<boolean> {
    this.lag = 'publishers buffering';
    const buffered =
      (await metricSum(this.lc.gateway.managementUrl, 'ostore_usage_buffered_deltas')) +
      (await metricSum(this.lc.scheduler.managementUrl, 'ostore_usage_buffered_deltas'));
    if (buffered !== 0) return false;
    const admin = await this.kafka.admin();
    const topic = this.kafka.topic('usage');
    const ends = await admin.fetchTopicOffsets(topic);
    const total = ends.reduce((n, p) => n + Number(p.high), 0);
    this.lag = `reader has ${this.topic.records.length} of ${total}`;
    if (this.topic.records.length < total) return false;
    const [committed] = await admin.fetchOffsets({ groupId: `${topic}.stats`, topics: [topic] });
    const at = ends.map((e) =>
      Math.max(0, Number(committed?.partitions.find((p) => p.partition === e.partition)?.offset ?? 0)),
    );
    this.lag = `stats committed ${at.join(',')} of ${ends.map((e) => e.high).join(',')}`;
    return ends.every((e, i) => at[i] === Number(e.high));
  }

  /**
   * When the later of the scanner's first completed passes over `versions` and `uploads` at this
   * cut ended, from its log ("scan pass completed", logged after the pass's last read and its
   * snapshot's save); undefined while either is missing.
   */
  firstPassesEnd(cutMs: number): number | undefined {
    const first = new Map<string, number>();
    for (const line of this.lc.scanner.process.output.join('').split('\n')) {
      if (!line.includes('"scan pass completed"')) continue;
      let l: { table?: string; passStartedAt?: string; time?: string };
      try {
        l = JSON.parse(line) as typeof l;
      } catch {
        continue;
      }
      if (l.table !== 'versions' && l.table !== 'uploads') continue;
      if (first.has(l.table) || !l.passStartedAt || !l.time || cutOf(Date.parse(l.passStartedAt)) !== cutMs)
        continue;
      first.set(l.table, Date.parse(l.time));
    }
    return first.size === 2 ? Math.max(...first.values()) : undefined;
  }

  /** The deltas of a bucket on the usage topic. */
  deltas(bucketId: string): UsageRecordOnTopic[] {
    return this.topic.records.filter((r) => r.delta.bucketId === bucketId);
  }

  /**
   * Compares once: everything delivered, recount before and after the stats answer equal. Exact
   * when the snapshot's cut precedes the bucket's first delta and its clients' first step (the
   * snapshot holds nothing of it); otherwise the README's bound ("Snapshots", "How exact"), from
   * the deltas between the cut C and the end E of the scanner's first passes at it (the host keeps
   * the first completed pass of a cut, and the combination uses it) and the clients' steps
   * (`steps`: when each was sent and answered, as its client saw it, so a superset of what the
   * servers had in flight):
   * - lower by at most the bytes and objects removed in [C, E] (a removal of something written
   *   before C that the pass read after it happened: counted twice until the cut moves), plus the
   *   part bytes of the multipart uploads completed in [C, E] (parts stored before C, gone when the
   *   pass read the uploads, the version after C: in neither);
   * - higher by at most what the steps in flight across the cut stored (a version or part with a
   *   timestamp before the cut whose delta is stamped at or after it: in both).
   * With `converged`, only an answer whose cut lies past the bucket's last delta and its clients' last
   * step is compared, and it must be exact (README: usage converges once the cut has moved past the
   * last change).
   */
  async compare(
    bucket: string,
    options: { cutFrom?: number; steps?: readonly Span[]; converged?: boolean } = {},
  ): Promise<Comparison | string> {
    if (!(await this.caughtUp())) return `not caught up: ${this.lag}`;
    const before = await this.recount(bucket);
    const stats = await this.current(before.bucketId);
    const cutFrom = options.cutFrom;
    if (cutFrom !== undefined && !(stats.cut && new Date(stats.cut).getTime() >= cutFrom))
      return `the cut ${stats.cut ?? '-'} is not yet at ${new Date(cutFrom).toISOString()}`;
    const after = await this.recount(bucket);
    if (before.bytes !== after.bytes || before.objects !== after.objects)
      return `the recount moved: ${JSON.stringify(before)} then ${JSON.stringify(after)}`;
    if (!(await this.caughtUp())) return `not caught up after the recount: ${this.lag}`;
    const mine = this.deltas(before.bucketId).map((r) => r.delta);
    const steps = (options.steps ?? []).filter((s) => s.bucket === bucket);
    const first = Math.min(...mine.map((d) => new Date(d.at).getTime()), ...steps.map((s) => s.startMs));
    const cut = stats.cut ? new Date(stats.cut).getTime() : undefined;
    if (options.converged) {
      // README "How exact": once the cut has moved past the bucket's last change, no error is left
      const lastChange = Math.max(...mine.map((d) => new Date(d.at).getTime()), ...steps.map((s) => s.endMs));
      if (cut === undefined || cut <= lastChange)
        return `the cut ${stats.cut ?? '-'} is not yet past the bucket's last change at ${new Date(lastChange).toISOString()}`;
    }
    const exact = cut === undefined || cut <= first || options.converged === true;
    const passesEnd = exact || cut === undefined ? undefined : this.firstPassesEnd(cut);
    if (!exact && passesEnd === undefined)
      return `the scanner's first passes at the cut ${stats.cut} are not in its log yet`;
    const atMs = (d: { at: Date | string }) => new Date(d.at).getTime();
    const since = mine.filter((d) => cut !== undefined && atMs(d) >= cut);
    const inWindow = since.filter((d) => passesEnd !== undefined && atMs(d) <= passesEnd);
    const across = steps.filter((s) => cut !== undefined && s.startMs <= cut && s.endMs >= cut);
    const removed = {
      bytes: -sum(inWindow.filter((d) => d.bytes < 0).map((d) => d.bytes)),
      objects: -sum(inWindow.map((d) => Math.min(0, d.objects ?? 0))),
    };
    const completed = sum(
      steps
        .filter(
          (s) =>
            s.kind === 'multipart-complete' &&
            cut !== undefined &&
            passesEnd !== undefined &&
            s.startMs <= passesEnd &&
            s.endMs >= cut,
        )
        .map((s) => s.bytes),
    );
    const inflight = {
      // a copy's size is its source's, at most the largest body the clients send
      bytes: sum(across.map((s) => (s.kind === 'copy' ? MAX_BODY : s.bytes))),
      objects: across.filter((s) => ['put', 'copy', 'multipart-complete'].includes(s.kind)).length,
    };
    const allowed = exact
      ? { bytes: [0, 0] as [number, number], objects: [0, 0] as [number, number] }
      : {
          bytes: [-(removed.bytes + completed), inflight.bytes] as [number, number],
          objects: [-removed.objects, inflight.objects] as [number, number],
        };
    const within = (k: 'bytes' | 'objects') =>
      stats[k] - before[k] >= allowed[k][0] && stats[k] - before[k] <= allowed[k][1];
    return {
      bucket,
      stats,
      recount: { bytes: before.bytes, objects: before.objects },
      rule: exact ? 'exact' : 'bound',
      allowed,
      ...(passesEnd !== undefined && cut !== undefined
        ? {
            window: {
              passesEndMs: passesEnd - cut,
              ...(stats.asOf !== undefined && stats.snapshotAgeSeconds !== undefined
                ? { usedPassEndMs: Date.parse(stats.asOf) - stats.snapshotAgeSeconds * 1000 - cut }
                : {}),
              removedBytes: removed.bytes,
              removedBytesSinceCut: -sum(since.filter((d) => d.bytes < 0).map((d) => d.bytes)),
            },
          }
        : {}),
      ok: within('bytes') && within('objects'),
    };
  }

  /**
   * Waits (with a deadline) until the comparison holds for every bucket in one round (with
   * `cutFrom`: answered from a snapshot whose cut is at or after that instant); fails with
   * each bucket's last comparison (or why there was none: not caught up, the recount moved, an
   * error) and the stats log.
   */
  async agree(
    label: string,
    buckets: string[],
    options: {
      timeoutMs?: number;
      cutFrom?: number;
      /** Only a cut past the bucket's last change (delta or client step) is taken, and the answer must then be exact. */
      converged?: boolean;
      steps?: readonly Span[];
      explain?: (bucket: string, cutMs: number) => string;
    } = {},
  ): Promise<Comparison[]> {
    const last = new Map<string, Comparison | string>();
    try {
      return await waitFor(
        `${label}: current usage agrees with the recount`,
        async () => {
          const round: Comparison[] = [];
          for (const b of buckets) {
            const c = await this.compare(b, options).catch((e: Error) => `error: ${e.message}`);
            last.set(b, c);
            if (typeof c === 'string' || !c.ok) return undefined;
            round.push(c);
          }
          return round;
        },
        options.timeoutMs ?? 60_000,
        500,
      );
    } catch (e) {
      const lines = buckets.map((b) => {
        const c = last.get(b);
        if (c === undefined || typeof c === 'string') return `${b}: ${c ?? 'never compared'}`;
        const off = (k: 'bytes' | 'objects') =>
          `${k} stats-recount ${c.stats[k] - c.recount[k]} allowed [${c.allowed[k].join(', ')}]`;
        const around =
          c.stats.cut && options.explain
            ? `\n  around the cut: ${options.explain(b, new Date(c.stats.cut).getTime())}`
            : '';
        return `${b}: ${c.ok ? 'ok' : 'OUT'} (${c.rule}, cut ${c.stats.cut ?? '-'}): ${off('bytes')}, ${off('objects')}; ${JSON.stringify(c)}${around}`;
      });
      throw new Error(
        `${(e as Error).message}\n${lines.join('\n')}\n--- stats ---\n${this.stats.output.join('').slice(-3000)}`,
      );
    }
  }
}

const sum = (xs: number[]) => xs.reduce((n, x) => n + x, 0);
