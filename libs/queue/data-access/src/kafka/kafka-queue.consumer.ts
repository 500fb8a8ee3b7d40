import { Consumer, EachBatchPayload } from 'kafkajs';
import { QueueName } from '@ostore/queue/contracts';
import { PartitionProgress, runBatch } from '../batch-runner';
import { KafkaClient } from '../kafka.client';
import { PauseState } from '../pause-state';
import {
  BatchHandler,
  DEFAULT_COMMIT_INTERVAL_MS,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_MAX_BATCH_SIZE,
  DEFAULT_RETRY_BACKOFF,
  HandBack,
  QueueConsumer,
  QueueConsumerSettings,
  QueueLog,
  QueueMessage,
  QueueSubscription,
  silentLog,
  SubscribeOptions,
} from '../queue';
import { QueueMetrics } from '../queue.metrics';
import { TokenBucket } from '../token-bucket';

export interface KafkaQueueConsumerSettings extends QueueConsumerSettings {
  /** Group session timeout (broker bounds: 6 s .. 300 s by default). Default 30000. */
  sessionTimeoutMs?: number;
  /** How long the group waits for members to rejoin during a rebalance. Default 60000. */
  rebalanceTimeoutMs?: number;
  /** Default 3000; heartbeats are also sent while a long batch runs. */
  heartbeatIntervalMs?: number;
  /** Fetch long-poll time when a partition has nothing new. Default 1000. */
  maxWaitTimeMs?: number;
}

/**
 * QueueConsumer over Kafka consumer groups. The group of a subscription is
 * `<topic>.<group>`: one group per queue, so the Kafka group protocol gives each partition to at
 * most one member, and members of different queues never rebalance each other.
 */
export class KafkaQueueConsumer extends QueueConsumer {
  private readonly subscriptions = new Set<KafkaSubscription>();

  constructor(
    private readonly client: KafkaClient,
    private readonly settings: KafkaQueueConsumerSettings,
    private readonly metrics: QueueMetrics = new QueueMetrics(),
    private readonly log: QueueLog = silentLog,
  ) {
    super();
  }

  async subscribe(
    queue: QueueName,
    handler: BatchHandler,
    options: SubscribeOptions = {},
  ): Promise<QueueSubscription> {
    const sub = new KafkaSubscription(
      this.client,
      queue,
      handler,
      options,
      this.settings,
      this.metrics,
      this.log,
    );
    this.subscriptions.add(sub);
    try {
      await sub.start();
    } catch (e) {
      this.subscriptions.delete(sub);
      await sub.stop().catch(() => undefined);
      throw e;
    }
    return sub;
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    this.subscriptions.clear();
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
class KafkaSubscription implements QueueSubscription {
  private consumer?: Consumer;
  private topic = '';
  private partitions = 0;
  private assigned: number[] = [];
  private readonly progress = new Map<number, PartitionProgress>();
  private readonly limiters = new Map<number, TokenBucket>();
  private readonly pauses: PauseState;
  private readonly handBack = new AbortController();
  private running = false;
  private stopping = false;
  private stopped?: Promise<void>;

  constructor(
    private readonly client: KafkaClient,
    readonly queue: QueueName,
    private readonly handler: BatchHandler,
    private readonly options: SubscribeOptions,
    private readonly settings: KafkaQueueConsumerSettings,
    private readonly metrics: QueueMetrics,
    private readonly log: QueueLog,
  ) {
    this.pauses = new PauseState(options.retryBackoff ?? DEFAULT_RETRY_BACKOFF, () => this.syncPauses());
  }

  get groupId(): string {
    return `${this.topic}.${this.settings.group}`;
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
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      const before = this.assigned;
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
    this.syncPauses();
  }

  assignedPartitions(): number[] {
    return this.stopping ? [] : [...this.assigned];
  }

  pause(partitions?: number[]): void {
    this.pauses.pause(partitions);
  }

  resume(partitions?: number[]): void {
    this.pauses.resume(partitions);
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

  stop(): Promise<void> {
    if (!this.stopped) {
      this.stopping = true;
      this.stopped = (async () => {
        const drain = setTimeout(
          () => this.handBack.abort(new HandBack('stopping')),
          this.settings.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS,
        );
        try {
          // Waits for running batches (which start no new chunk and commit what is done), then leaves the group.
          await this.consumer?.disconnect();
        } finally {
          clearTimeout(drain);
          this.pauses.clear();
          this.metrics.forgetLag(this.queue, this.assigned);
          this.assigned = [];
          this.running = false;
        }
      })();
    }
    return this.stopped;
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

    const commitIntervalMs = this.settings.commitIntervalMs ?? DEFAULT_COMMIT_INTERVAL_MS;
    const result = await runBatch({
      queue: this.queue,
      partition,
      messages,
      handler: this.handler,
      progress,
      commit: (position) =>
        payload.commitOffsetsIfNecessary({
          topics: [{ topic: this.topic, partitions: [{ partition, offset: String(position) }] }],
        }),
      maxBatchSize: this.options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE,
      limiter: this.limiter(partition),
      signal: this.handBack.signal,
      mayStart: () => !this.stopping && isRunning() && !isStale() && !this.pauses.isPaused(partition),
      tick: () => payload.heartbeat(),
      tickMs: Math.min(commitIntervalMs, this.settings.heartbeatIntervalMs ?? 3000),
      abandonAfterMs: this.settings.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS,
      metrics: this.metrics,
    });
    if (result.abandoned) {
      this.log.error('queue handler ignored its abort signal and was abandoned; its messages come again', {
        queue: this.queue,
        partition,
        position: result.position,
      });
    }

    // The next fetch starts at the first message not done (kafkajs fetches from resolved + 1).
    if (result.position > first) payload.resolveOffset(String(result.position - 1));
    this.metrics.setLag(this.queue, partition, highWatermark - result.position);
    if (result.commitError) {
      this.log.warn('queue commit failed; the uncommitted messages will be delivered again', {
        queue: this.queue,
        partition,
        position: result.position,
        err: String(result.commitError),
      });
    }
    if (result.failure !== undefined) {
      const delayMs = this.pauses.failed(partition);
      this.log.warn('queue handler failed; redelivering from the first undone message', {
        queue: this.queue,
        partition,
        position: result.position,
        delayMs,
        err: result.failure instanceof Error ? result.failure.message : String(result.failure),
      });
    } else if (!result.handedBack) {
      this.pauses.succeeded(partition);
    }
  }

  private limiter(partition: number): TokenBucket | undefined {
    const rate = this.options.ratePerPartition;
    if (!rate) return undefined;
    let limiter = this.limiters.get(partition);
    if (!limiter) {
      limiter = new TokenBucket(rate);
      this.limiters.set(partition, limiter);
    }
    return limiter;
  }

  /** Mirrors the effective pause state (user pauses and failure backoffs) onto kafkajs. */
  private syncPauses(): void {
    if (!this.consumer || !this.running || this.stopping) return;
    const paused: number[] = [];
    const active: number[] = [];
    for (let p = 0; p < this.partitions; p++) (this.pauses.isPaused(p) ? paused : active).push(p);
    if (paused.length) this.consumer.pause([{ topic: this.topic, partitions: paused }]);
    if (active.length) this.consumer.resume([{ topic: this.topic, partitions: active }]);
  }
}
