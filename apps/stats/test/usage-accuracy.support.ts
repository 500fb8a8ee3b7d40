import { mkdtemp, rm } from 'fs/promises';
import { tmpdir } from 'os';
import { join } from 'path';
import { KafkaClient } from '@ostore/queue/data-access';
import { UsageRecordOnTopic, UsageTopicReader } from '@ostore/queue/data-access/testing';
import { appEnv, AppProcess, freshCluster, metricSum, stackEnv, waitFor } from '@ostore/testing';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the drill starts the whole system (gateway, scanner, scheduler) with the scheduler's own test helper, as deploy/test does
import { LifecycleSystem, startLifecycleSystem } from '../../scheduler/test/lifecycle-system';

/** Bytes and objects of a bucket. */
export interface Usage {
  bytes: number;
  objects: number;
}

/** What one comparison of the stats app's current usage with the recount found. */
export interface Comparison {
  bucket: string;
  stats: Usage & { cut?: string; deltaEvents?: number };
  recount: Usage;
  /** `exact`: no snapshot cut after the bucket's first write, so the two must be equal. */
  rule: 'exact' | 'bound';
  /** The allowed range of stats − recount (README "Snapshots", "How exact"). */
  allowed: { bytes: [number, number]; objects: [number, number] };
  ok: boolean;
}

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
      27000 + Math.floor(Math.random() * 1000),
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
  async current(bucketId: string): Promise<Usage & { cut?: string; deltaEvents?: number }> {
    const res = await fetch(`http://127.0.0.1:${this.statsPort}/usage/buckets/${bucketId}`);
    if (res.status !== 200) throw new Error(`stats usage: ${res.status} ${await res.text()}`);
    return (await res.json()) as Usage & { cut?: string };
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

  /** The deltas of a bucket on the usage topic. */
  deltas(bucketId: string): UsageRecordOnTopic[] {
    return this.topic.records.filter((r) => r.delta.bucketId === bucketId);
  }

  /**
   * Compares once: everything delivered, recount before and after the stats answer equal. Exact
   * when the snapshot's cut precedes the bucket's first delta (the snapshot holds nothing of it);
   * otherwise the README's bound: a removal at or after the cut of something written before it may
   * be counted twice until the cut moves (stats lower by at most the bytes and objects removed
   * since the cut), a PUT in flight across the cut once more (higher by at most the stores within a
   * second of the cut).
   */
  async compare(bucket: string): Promise<Comparison | undefined> {
    if (!(await this.caughtUp())) return undefined;
    const before = await this.recount(bucket);
    const stats = await this.current(before.bucketId);
    const after = await this.recount(bucket);
    if (before.bytes !== after.bytes || before.objects !== after.objects || !(await this.caughtUp()))
      return undefined;
    const mine = this.deltas(before.bucketId).map((r) => r.delta);
    const first = Math.min(...mine.map((d) => new Date(d.at).getTime()));
    const cut = stats.cut ? new Date(stats.cut).getTime() : undefined;
    const exact = cut === undefined || cut <= first;
    const since = mine.filter((d) => cut !== undefined && new Date(d.at).getTime() >= cut);
    const removed = {
      bytes: -sum(since.filter((d) => d.bytes < 0).map((d) => d.bytes)),
      objects: -sum(since.map((d) => Math.min(0, d.objects ?? 0))),
    };
    const near = mine.filter((d) => cut !== undefined && Math.abs(new Date(d.at).getTime() - cut) < 1000);
    const inflight = {
      bytes: sum(near.map((d) => Math.max(0, d.bytes))),
      objects: sum(near.map((d) => Math.max(0, d.objects ?? 0))),
    };
    const allowed = exact
      ? { bytes: [0, 0] as [number, number], objects: [0, 0] as [number, number] }
      : {
          bytes: [-removed.bytes, inflight.bytes] as [number, number],
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
      ok: within('bytes') && within('objects'),
    };
  }

  /** Waits (with a deadline) until the comparison holds for every bucket; fails with the last comparisons and the stats log. */
  async agree(label: string, buckets: string[], timeoutMs = 60_000): Promise<Comparison[]> {
    let last: (Comparison | undefined)[] = [];
    try {
      return await waitFor(
        `${label}: current usage agrees with the recount`,
        async () => {
          last = [];
          for (const b of buckets) last.push(await this.compare(b));
          return last.every((c) => c?.ok) ? (last as Comparison[]) : undefined;
        },
        timeoutMs,
        500,
      );
    } catch (e) {
      throw new Error(
        `${(e as Error).message}\nlast: ${JSON.stringify(last, null, 1)} (${this.lag})\n--- stats ---\n${this.stats.output.join('').slice(-3000)}`,
      );
    }
  }
}

const sum = (xs: number[]) => xs.reduce((n, x) => n + x, 0);
