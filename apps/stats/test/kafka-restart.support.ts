import { mkdtemp, rm } from 'fs/promises';
import { tmpdir } from 'os';
import { join } from 'path';
import { KafkaClient } from '@ostore/queue/data-access';
import { UsageRecordOnTopic, UsageTopicReader } from '@ostore/queue/data-access/testing';
import { appEnv, AppProcess, freshCluster, metricSum, sigkillAndWait, testStack, waitFor } from '@ostore/testing';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the drill starts the whole system (gateway, scanner, scheduler) with the scheduler's own test helper, as the usage accuracy drill does
import { LifecycleSystem, startLifecycleSystem } from '../../scheduler/test/lifecycle-system';

const stack = require(join(__dirname, '../../../tools/stack/index.cjs'));

const PARTITIONS = 3;

/**
 * A Kafka broker of the drill's own, beside the run's stack (`<run's stack dir>-kafka`, the run's
 * Kafka ports + 5): the run's broker is shared by the other cluster specs, which must not see it
 * die. Cassandra is the run's.
 */
function kafkaStack() {
  const run = testStack();
  return {
    stackDir: `${run.stackDir}-kafka`,
    kafkaHost: '127.0.0.1',
    kafkaPort: run.kafkaPort + 5,
    kafkaControllerPort: run.kafkaControllerPort + 5,
    only: 'kafka',
    // a server of another stack dir on these endpoints is an error, never used
    exclusive: true,
    quiet: true,
    timeoutSec: 240,
  };
}

/** Bytes and objects of a bucket. */
export interface Usage {
  bytes: number;
  objects: number;
}

/**
 * The system of the Kafka restart drill: its own broker, gateway, scanner (a pass every second),
 * scheduler (lifecycle day of 10 s) and stats app over one keyspace and one cluster, every one of
 * them on that broker.
 */
export class KafkaDrillSystem {
  stats!: AppProcess;
  /** Why the last caughtUp() said no. */
  lag = '';

  private constructor(
    readonly lc: LifecycleSystem,
    readonly cluster: string,
    readonly kafka: KafkaClient,
    readonly brokers: string,
    readonly statsPort: number,
    readonly dataDir: string,
    private readonly startedBroker: boolean,
  ) {}

  static async start(): Promise<KafkaDrillSystem> {
    const info = await stack.ensureStackUp(kafkaStack());
    const brokers = (info.kafka.brokers as string[]).join(',');
    const cluster = freshCluster('kdrill');
    const same = { OSTORE_CLUSTER: cluster, KAFKA_BROKERS: brokers, KAFKA_TOPIC_PARTITIONS: String(PARTITIONS), USAGE_LINGER_MS: '20' };
    const lc = await startLifecycleSystem('kafka', { gateway: same, scanner: same, scheduler: same });
    const kafka = new KafkaClient({ brokers: brokers.split(','), clientId: 'kafka-drill-spec', cluster, partitions: PARTITIONS, replicationFactor: 1 });
    await kafka.ensureTopic('usage');
    const dataDir = await mkdtemp(join(tmpdir(), 'ostore-stats-kdrill-'));
    const sys = new KafkaDrillSystem(lc, cluster, kafka, brokers, 26000 + Math.floor(Math.random() * 1000), dataDir, info.startedByUs);
    try {
      await lc.ready();
      await sys.startStats();
    } catch (e) {
      await sys.stop();
      throw e;
    }
    return sys;
  }

  /**
   * The stats app; snapshots are combined once a day, so its current usage is the deltas since a
   * cut taken before the drill's bucket existed (or no cut at all): comparable to the recount exactly.
   */
  async startStats(): Promise<void> {
    this.stats = new AppProcess('stats', {
      ...appEnv(this.lc.gateway.keyspace, this.cluster),
      KAFKA_BROKERS: this.brokers,
      MANAGEMENT_PORT: String(this.statsPort),
      MANAGEMENT_HOST: '127.0.0.1',
      MIGRATE_ON_START: 'false',
      KAFKA_TOPIC_PARTITIONS: String(PARTITIONS),
      STATS_BATCH_SIZE: '50',
      STATS_SNAPSHOT_COMBINE_SECONDS: '86400',
      STATS_DATA_DIR: this.dataDir,
      SHUTDOWN_TIMEOUT_MS: '10000',
    }).start();
    const p = this.stats;
    await waitFor(
      'the stats app ready',
      async () => {
        if (p.exitCode !== undefined) throw new Error(`stats exited (${p.exitCode}):\n${p.output.join('').slice(-4000)}`);
        const res = await fetch(`http://127.0.0.1:${this.statsPort}/health/ready`);
        await res.text();
        return res.status === 200 ? true : undefined;
      },
      120_000,
      250,
    );
  }

  get statsUrl(): string {
    return `http://127.0.0.1:${this.statsPort}`;
  }

  /** SIGKILLs the broker (no clean shutdown) and waits until its process is gone. */
  async killBroker(): Promise<void> {
    const pid = (await stack.status(kafkaStack())).kafka.pid as number | undefined;
    if (!pid) throw new Error('the drill broker is not running');
    await sigkillAndWait(pid, 'the drill broker', 50);
  }

  /** Starts the broker again on its data and waits until it answers. */
  async startBroker(): Promise<void> {
    await stack.startKafka(kafkaStack());
  }

  async stop(): Promise<void> {
    await this.stats?.stop();
    await this.kafka?.close();
    await this.lc?.stop();
    await rm(this.dataDir, { recursive: true, force: true });
    if (this.startedBroker && process.env.OSTORE_TEST_LEAVE_STACK !== '1') await stack.stackDown({ ...kafkaStack(), purge: true });
  }

  /** The admin API's usage of a bucket without a quota, without ADMIN_STATS_URL: an exact recount of the metastore. */
  async recount(bucket: string): Promise<Usage & { bucketId: string }> {
    const gw = this.lc.gateway;
    const res = await fetch(`${gw.adminUrl}/admin/buckets/${bucket}/usage`, { headers: { authorization: `Bearer ${gw.adminToken}` } });
    const body = (await res.json()) as { bucketId: string; bytes: number; objects: number; source: string };
    if (res.status !== 200 || body.source !== 'recount') throw new Error(`admin usage of ${bucket}: ${res.status} ${JSON.stringify(body)}`);
    return { bucketId: body.bucketId, bytes: body.bytes, objects: body.objects };
  }

  /** `GET /usage/buckets/:bucketId` of the stats app. */
  async current(bucketId: string): Promise<Usage & { cut?: string }> {
    const res = await fetch(`${this.statsUrl}/usage/buckets/${bucketId}`);
    if (res.status !== 200) throw new Error(`stats usage: ${res.status} ${await res.text()}`);
    return (await res.json()) as Usage & { cut?: string };
  }

  /**
   * Every delta produced has reached the stats app: the gateway's and scheduler's publishers hold
   * none (in memory or spooled), and the stats app's group has committed up to the topic's end.
   */
  async caughtUp(): Promise<boolean> {
    this.lag = 'publishers buffering';
    for (const url of [this.lc.gateway.managementUrl, this.lc.scheduler.managementUrl])
      if ((await metricSum(url, 'ostore_usage_buffered_deltas')) + (await metricSum(url, 'ostore_usage_spool_deltas')) !== 0) return false;
    const admin = await this.kafka.admin();
    const topic = this.kafka.topic('usage');
    const ends = await admin.fetchTopicOffsets(topic);
    const [committed] = await admin.fetchOffsets({ groupId: `${topic}.stats`, topics: [topic] });
    const at = ends.map((e) => Math.max(0, Number(committed?.partitions.find((p) => p.partition === e.partition)?.offset ?? 0)));
    this.lag = `stats committed ${at.join(',')} of ${ends.map((e) => e.high).join(',')}`;
    return ends.every((e, i) => at[i] === Number(e.high));
  }

  /** The whole usage topic, read from the beginning by a consumer of its own, once it holds `total` messages. */
  async readUsageTopic(): Promise<UsageRecordOnTopic[]> {
    const admin = await this.kafka.admin();
    const total = (await admin.fetchTopicOffsets(this.kafka.topic('usage'))).reduce((n, p) => n + Number(p.high), 0);
    const reader = await UsageTopicReader.start(this.kafka);
    try {
      return await reader.until(`all ${total} usage messages`, (r) => r.length >= total, 60_000);
    } finally {
      await reader.close();
    }
  }

  /** The logs of every app, for a failure message. */
  logs(): string {
    return (
      `\n--- gateway ---\n${this.lc.gateway.process.output.join('').slice(-3000)}` +
      `\n--- scanner ---\n${this.lc.scanner.logTail(3000)}\n--- scheduler ---\n${this.lc.scheduler.logTail(3000)}` +
      `\n--- stats ---\n${this.stats.output.join('').slice(-3000)}`
    );
  }
}
