import { AssignerProtocol, Consumer, EachBatchPayload, PartitionAssigner, PartitionAssigners } from 'kafkajs';
import { PartitionProgress } from '../batch-runner';
import { ShellConsumer, SubscriptionShell, SubscriptionSpec } from '../consumer-shell';
import { consumerGroupId, KafkaClient } from '../kafka.client';
import { HandBack, QueueConsumerSettings, QueueMessage } from '../queue';

export interface KafkaQueueConsumerSettings extends QueueConsumerSettings {
  /** Group session timeout (broker bounds: 6 s .. 300 s by default). Default 30000. */
  sessionTimeoutMs?: number;
  /** How long the group waits for members to rejoin during a rebalance. Default 60000. */
  rebalanceTimeoutMs?: number;
  /** Default 3000; heartbeats are also sent while a long batch runs. */
  heartbeatIntervalMs?: number;
  /**
   * Fetch long-poll time: how long the broker holds a fetch that has less than `minBytes` for it.
   * Default 1000.
   */
  maxWaitTimeMs?: number;
  /**
   * The least a fetch answers with unless `maxWaitTimeMs` runs out first. Default 1 (answer as soon
   * as anything is there); more makes batches larger under a trickle, at up to `maxWaitTimeMs` of delay.
   */
  minBytes?: number;
  /**
   * A short string this member announces to its group (the userData of its member metadata),
   * e.g. the URL it answers on; any client reads it with `KafkaClient.groupAssignment`. The
   * assignment itself stays kafkajs' round robin. Default: nothing.
   */
  memberData?: string;
}

/** kafkajs' round-robin assigner, announcing `data` in the member metadata's userData. */
function announcingRoundRobin(data: string): PartitionAssigner {
  return (config) => {
    const base = PartitionAssigners.roundRobin(config);
    return {
      name: base.name,
      version: base.version,
      assign: (group) => base.assign(group),
      protocol: ({ topics }) => ({
        name: base.name,
        metadata: AssignerProtocol.MemberMetadata.encode({
          version: base.version,
          topics,
          userData: Buffer.from(data, 'utf8'),
        }),
      }),
    };
  };
}

/**
 * QueueConsumer over Kafka consumer groups. The group of a subscription is
 * `<topic>.<group>`: one group per queue, so the Kafka group protocol gives each partition to at
 * most one member, and members of different queues never rebalance each other.
 */
export class KafkaQueueConsumer extends ShellConsumer<KafkaClient, KafkaQueueConsumerSettings> {
  protected open(spec: SubscriptionSpec<KafkaQueueConsumerSettings>): KafkaSubscription {
    return new KafkaSubscription(this.backend, spec);
  }
}

/**
 * Offsets: `autoCommit: false` and `eachBatchAutoResolve: false`. runBatch commits, through the
 * batch's own `commitOffsetsIfNecessary(offsets)` (bound to the current group generation), the
 * position after the highest contiguous done message — while the batch runs and at its end.
 * After the batch, the fetch position is set (resolveOffset) to that same position, so whatever
 * was not done — a failed message and everything after it — is fetched again, after the
 * partition's backoff pause. Nothing is ever resolved past an undone message.
 *
 * Rebalances: a heartbeat is sent with every commit tick while a handler runs; when it reports a
 * rebalance the batch's signal aborts (HandBack 'revoked'), the done prefix is committed and the
 * batch returns so that kafkajs can rejoin. A handler that ignores its signal for longer than the
 * rebalance timeout gets its member expelled, and then its partition may briefly have two
 * readers: handlers stay idempotent.
 */
class KafkaSubscription extends SubscriptionShell<KafkaQueueConsumerSettings> {
  private consumer?: Consumer;
  private topic = '';
  private partitions = 0;
  private assigned: number[] = [];
  private generations = 0;
  private readonly progress = new Map<number, PartitionProgress>();
  private readonly handBack = new AbortController();
  private running = false;
  /** A crashed consumer is being replaced (restartAfterCrash). */
  private restarting = false;

  constructor(
    private readonly client: KafkaClient,
    spec: SubscriptionSpec<KafkaQueueConsumerSettings>,
  ) {
    super(spec);
  }

  get groupId(): string {
    return consumerGroupId(this.topic, this.settings.group);
  }

  async start(): Promise<void> {
    this.topic = await this.client.ensureTopic(this.queue);
    this.partitions = await this.client.partitionCount(this.topic);
    const consumer = this.client.kafka.consumer({
      groupId: this.groupId,
      sessionTimeout: this.settings.sessionTimeoutMs ?? 30_000,
      rebalanceTimeout: this.settings.rebalanceTimeoutMs ?? 60_000,
      heartbeatInterval: this.settings.heartbeatIntervalMs ?? 3000,
      maxWaitTimeInMs: this.settings.maxWaitTimeMs ?? 1000,
      minBytes: this.settings.minBytes ?? 1,
      allowAutoTopicCreation: false,
      ...(this.settings.memberData ? { partitionAssigners: [announcingRoundRobin(this.settings.memberData)] } : {}),
    });
    this.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      const before = this.assigned;
      this.generations++;
      this.assigned = [...(payload.memberAssignment[this.topic] ?? [])].sort((a, b) => a - b);
      this.metrics.forgetLag(this.queue, before.filter((p) => !this.assigned.includes(p)));
      // A new generation starts from the committed offsets: forget in-memory progress.
      this.progress.clear();
      this.log.info('queue partitions assigned', {
        queue: this.queue,
        group: this.groupId,
        partitions: this.assigned,
      });
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      this.log.error('kafka consumer crashed', {
        queue: this.queue,
        group: this.groupId,
        err: payload.error,
        restart: payload.restart,
      });
      // kafkajs restarts only after retriable errors; after another (e.g. GroupCoordinatorNotFound
      // while a young broker loads __consumer_offsets) its consumer stays stopped for good
      if (!payload.restart && consumer === this.consumer) this.restartAfterCrash();
    });
    await consumer.connect();
    // A new group starts at the earliest retained message: nothing produced before it joined is lost.
    await consumer.subscribe({ topics: [this.topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: Math.max(1, this.options.concurrency ?? 1),
      eachBatch: (payload) => this.eachBatch(payload),
    });
    this.running = true;
    // Only pauses made before the start need mirroring (kafkajs starts with every partition
    // resumed); resume() before the group has joined (e.g. while it rejoins after a crash of the
    // first join) would throw "Consumer group was not initialized" and fail the boot.
    if (Array.from({ length: this.partitions }, (_, p) => p).some((p) => this.pauses.isPaused(p))) this.pausesChanged();
  }

  assignedPartitions(): number[] {
    return this.stopping ? [] : [...this.assigned];
  }

  /**
   * Replaces a consumer kafkajs gave up on with a new one (the same group, so it resumes from the
   * committed offsets), retrying with a doubling delay from 1 s to 30 s until it runs or the
   * subscription stops.
   */
  private restartAfterCrash(): void {
    if (this.restarting) return;
    this.restarting = true;
    this.running = false;
    this.assigned = [];
    this.progress.clear();
    const attempt = (delayMs: number) => {
      const timer = setTimeout(() => {
        if (this.stopping) return void (this.restarting = false);
        void (this.consumer?.disconnect() ?? Promise.resolve())
          .catch(() => undefined)
          .then(() => (this.stopping ? undefined : this.start()))
          .then(
            () => {
              this.restarting = false;
              this.log.info('kafka consumer restarted after a crash', { queue: this.queue, group: this.groupId });
            },
            (err: unknown) => {
              const next = Math.min(delayMs * 2, 30_000);
              this.log.error('kafka consumer restart failed; retrying', { queue: this.queue, group: this.groupId, err: (err as Error).message, retryInMs: next });
              attempt(next);
            },
          );
      }, delayMs);
      timer.unref?.();
    };
    attempt(1000);
  }

  assignmentGeneration(): number {
    return this.generations;
  }

  async committedOffsets(): Promise<Map<number, number>> {
    const admin = await this.client.admin();
    const [topic] = await admin.fetchOffsets({ groupId: this.groupId, topics: [this.topic] });
    const result = new Map<number, number>();
    for (const p of topic?.partitions ?? []) {
      const offset = Number(p.offset);
      if (offset >= 0) result.set(p.partition, offset);
    }
    return result;
  }

  protected async shutdown(): Promise<void> {
    const drain = setTimeout(() => this.handBack.abort(new HandBack('stopping')), this.drainTimeoutMs);
    try {
      // Waits for running batches (which start no new chunk and commit what is done), then leaves the group.
      await this.consumer?.disconnect();
    } finally {
      clearTimeout(drain);
      this.metrics.forgetLag(this.queue, this.assigned);
      this.assigned = [];
      this.running = false;
    }
  }

  private async eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, isRunning, isStale } = payload;
    const partition = batch.partition;
    if (this.stopping || !isRunning() || isStale() || batch.isEmpty()) return;
    const messages: QueueMessage[] = batch.messages.map((m) => ({
      queue: this.queue,
      partition,
      offset: Number(m.offset),
      value: m.value ?? Buffer.alloc(0),
    }));
    const first = messages[0].offset;
    let progress = this.progress.get(partition);
    if (!progress) {
      progress = new PartitionProgress(first);
      this.progress.set(partition, progress);
    }
    const highWatermark = Number(batch.highWatermark);
    this.metrics.setLag(this.queue, partition, highWatermark - progress.committed);

    await this.process({
      partition,
      messages,
      progress,
      commit: (position) =>
        payload.commitOffsetsIfNecessary({
          topics: [{ topic: this.topic, partitions: [{ partition, offset: String(position) }] }],
        }),
      signal: this.handBack.signal,
      mayStart: () => !this.stopping && isRunning() && !isStale(),
      tick: () => payload.heartbeat(),
      tickMs: Math.min(this.commitIntervalMs, this.settings.heartbeatIntervalMs ?? 3000),
      settled: ({ position }) => {
        // The next fetch starts at the first message not done (kafkajs fetches from resolved + 1).
        if (position > first) payload.resolveOffset(String(position - 1));
        this.metrics.setLag(this.queue, partition, highWatermark - position);
      },
    });
  }

  /** Mirrors the effective pause state (user pauses and failure backoffs) onto kafkajs. */
  protected override pausesChanged(): void {
    if (!this.consumer || !this.running || this.stopping) return;
    const paused: number[] = [];
    const active: number[] = [];
    for (let p = 0; p < this.partitions; p++) (this.pauses.isPaused(p) ? paused : active).push(p);
    if (paused.length) this.consumer.pause([{ topic: this.topic, partitions: paused }]);
    if (active.length) this.consumer.resume([{ topic: this.topic, partitions: active }]);
  }
}
