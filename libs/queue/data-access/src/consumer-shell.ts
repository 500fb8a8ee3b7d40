import { QueueName } from '@ostore/queue/contracts';
import { BatchResult, PartitionProgress, runBatch } from './batch-runner';
import { PauseState } from './pause-state';
import {
  BatchHandler,
  DEFAULT_COMMIT_INTERVAL_MS,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_MAX_BATCH_SIZE,
  DEFAULT_RETRY_BACKOFF,
  QueueConsumer,
  QueueConsumerSettings,
  QueueLog,
  QueueMessage,
  QueueSubscription,
  silentLog,
  SubscribeOptions,
} from './queue';
import { QueueMetrics } from './queue.metrics';
import { TokenBucket } from './token-bucket';

/** One batch a backend fetched, with what only the backend knows: how to commit, when to stop. */
export interface FetchedBatch {
  partition: number;
  /** The fetched messages of the partition, in order. */
  messages: readonly QueueMessage[];
  progress: PartitionProgress;
  /** Persists a committable position (Kafka commitOffsets, Cassandra fenced LWT). */
  commit(position: number): Promise<void>;
  /** Aborted to hand the work back (drain time over, partition lost). */
  signal: AbortSignal;
  /** The backend's own conditions for starting the next chunk; the shell adds the pause state. */
  mayStart(): boolean;
  /** Called every `tickMs` while the batch runs (Kafka: heartbeat); a throw hands the batch back. */
  tick?(): Promise<void>;
  tickMs: number;
  /** Called with the run's result before anything else reacts to it (Kafka: resolveOffset). */
  settled?(result: BatchResult): void;
  /**
   * True for a commit error the backend deals with itself (Cassandra: the lease is lost): the
   * shell then neither logs it nor touches the partition's backoff.
   */
  ownsCommitError?(err: unknown): boolean;
}

/** What every subscription starts from: the queue, its handler and options, the consumer's settings. */
export interface SubscriptionSpec<S extends QueueConsumerSettings> {
  queue: QueueName;
  handler: BatchHandler;
  options: SubscribeOptions;
  settings: S;
  metrics: QueueMetrics;
  log: QueueLog;
}

/**
 * The part of a subscription both backends share: its options, the pause and backoff state, the
 * per-partition rate limiters, the run of one fetched batch (runBatch) and what follows it
 * (logs, failure backoff), and a stop that runs once. A backend adds only how partitions are
 * assigned, fetched and committed (`start`, `shutdown`, and the FetchedBatch it hands to `process`).
 */
export abstract class SubscriptionShell<
  S extends QueueConsumerSettings = QueueConsumerSettings,
> implements QueueSubscription {
  protected readonly pauses: PauseState;
  /** True from the first `stop()` on: no new batch starts. */
  protected stopping = false;
  private stopped?: Promise<void>;
  private readonly limiters = new Map<number, TokenBucket>();

  readonly queue: QueueName;
  protected readonly handler: BatchHandler;
  protected readonly options: SubscribeOptions;
  readonly settings: S;
  readonly metrics: QueueMetrics;
  readonly log: QueueLog;

  constructor(spec: SubscriptionSpec<S>) {
    ({ queue: this.queue, handler: this.handler, options: this.options, settings: this.settings } = spec);
    ({ metrics: this.metrics, log: this.log } = spec);
    this.pauses = new PauseState(this.options.retryBackoff ?? DEFAULT_RETRY_BACKOFF, () =>
      this.pausesChanged(),
    );
  }

  /** Joins the group and starts fetching. */
  abstract start(): Promise<void>;
  abstract assignedPartitions(): number[];
  abstract committedOffsets(): Promise<Map<number, number>>;
  /** The backend's graceful stop (see QueueSubscription.stop); called once. */
  protected abstract shutdown(): Promise<void>;
  /** Called whenever the effective pause state may have changed (Kafka mirrors it onto kafkajs). */
  protected pausesChanged(): void {}

  get drainTimeoutMs(): number {
    return this.settings.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  }

  get commitIntervalMs(): number {
    return this.settings.commitIntervalMs ?? DEFAULT_COMMIT_INTERVAL_MS;
  }

  /** Paused by the user or backing off after a failure. */
  isPaused(partition: number): boolean {
    return this.pauses.isPaused(partition);
  }

  pause(partitions?: number[]): void {
    this.pauses.pause(partitions);
  }

  resume(partitions?: number[]): void {
    this.pauses.resume(partitions);
  }

  stop(): Promise<void> {
    if (!this.stopped) {
      this.stopping = true;
      this.stopped = this.shutdown().finally(() => this.pauses.clear());
    }
    return this.stopped;
  }

  /**
   * Runs one fetched batch through the handler (runBatch: chunks, rate limit, contiguous commits),
   * then logs what went wrong and backs the partition off after a handler failure: its first
   * undone message and everything after it come again once the backoff is over.
   */
  async process(batch: FetchedBatch): Promise<BatchResult> {
    const { partition } = batch;
    const result = await runBatch({
      queue: this.queue,
      partition,
      messages: batch.messages,
      handler: this.handler,
      progress: batch.progress,
      commit: batch.commit,
      maxBatchSize: this.options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE,
      limiter: this.limiter(partition),
      signal: batch.signal,
      mayStart: () => batch.mayStart() && !this.pauses.isPaused(partition),
      tick: batch.tick,
      tickMs: batch.tickMs,
      abandonAfterMs: this.drainTimeoutMs,
      metrics: this.metrics,
    });
    batch.settled?.(result);
    const fields = { queue: this.queue, partition, position: result.position };
    if (result.abandoned)
      this.log.error(
        'queue handler ignored its abort signal and was abandoned; its messages come again',
        fields,
      );
    if (result.commitError !== undefined && batch.ownsCommitError?.(result.commitError)) return result;
    if (result.commitError !== undefined)
      this.log.warn(
        'queue commit failed; a later commit retries it, or the uncommitted messages come again',
        {
          ...fields,
          err: String(result.commitError),
        },
      );
    if (result.failure !== undefined) {
      const delayMs = this.pauses.failed(partition);
      this.log.warn('queue handler failed; redelivering from the first undone message', {
        ...fields,
        delayMs,
        err: result.failure instanceof Error ? result.failure.message : String(result.failure),
      });
    } else if (!result.handedBack) {
      this.pauses.succeeded(partition);
    }
    return result;
  }

  /** The partition's token bucket (one per partition for the subscription's life), if rate limited. */
  private limiter(partition: number): TokenBucket | undefined {
    const rate = this.options.ratePerPartition;
    if (!rate) return undefined;
    let limiter = this.limiters.get(partition);
    if (!limiter) {
      // without a clock in the settings, the bucket's own default: the process's monotonic time
      const clock = this.settings.clock;
      limiter = new TokenBucket(rate, undefined, clock && (() => clock.monotonicMs()));
      this.limiters.set(partition, limiter);
    }
    return limiter;
  }
}

/**
 * The part of a QueueConsumer both backends share: its connection, settings, metrics and log, the
 * subscriptions it started, a failed start undone, and `close()` stopping them all. A backend
 * only says how to `open` one.
 */
export abstract class ShellConsumer<B, S extends QueueConsumerSettings> extends QueueConsumer {
  private readonly subscriptions = new Set<SubscriptionShell<S>>();

  constructor(
    /** The backend's connection: the KafkaClient, or the queue tables. */
    protected readonly backend: B,
    protected readonly settings: S,
    protected readonly metrics: QueueMetrics = new QueueMetrics(),
    protected readonly log: QueueLog = silentLog,
  ) {
    super();
  }

  protected abstract open(spec: SubscriptionSpec<S>): SubscriptionShell<S>;

  async subscribe(
    queue: QueueName,
    handler: BatchHandler,
    options: SubscribeOptions = {},
  ): Promise<QueueSubscription> {
    const { settings, metrics, log } = this;
    const sub = this.open({ queue, handler, options, settings, metrics, log });
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
