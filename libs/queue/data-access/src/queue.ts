import { QueueName } from '@ostore/queue/contracts';
import { Clock } from '@ostore/shared/clock';

/** One message as a consumer sees it. */
export interface QueueMessage {
  readonly queue: QueueName;
  readonly partition: number;
  /**
   * Position in the partition (Kafka offset, Cassandra `num`): strictly increasing in delivery
   * order, not necessarily contiguous. Kept as a JS number: partitions never reach 2^53 messages.
   */
  readonly offset: number;
  readonly value: Buffer;
}

/**
 * Messages of one partition handed to a handler, in partition order.
 *
 * Completion rules (the whole at-least-once contract in three lines):
 * - the handler resolving means every message of the batch is fully processed;
 * - the handler throwing means only the messages passed to `done()` are: the first message not
 *   done and everything after it is delivered again (after a backoff), nothing before it;
 * - `done()` may be called in any order (concurrent processing inside a batch); progress is
 *   committed only up to the highest CONTIGUOUS done offset, so a crash never skips a message.
 * Handlers must be idempotent: anything not committed yet may be delivered again.
 */
export interface QueueBatch {
  readonly queue: QueueName;
  readonly partition: number;
  readonly messages: readonly QueueMessage[];
  /**
   * Aborted when the work must be handed back: the consumer is stopping and its drain time is
   * over, or the partition moved to another reader. Finish the current message, then throw
   * (e.g. `signal.throwIfAborted()`); do not resolve, which would claim the rest as done.
   */
  readonly signal: AbortSignal;
  /** Marks one message of this batch fully processed. Idempotent. */
  done(message: QueueMessage): void;
}

export type BatchHandler = (batch: QueueBatch) => Promise<void>;

export interface SubscribeOptions {
  /** Most messages per handler call (default 100). */
  maxBatchSize?: number;
  /** Per-partition rate limit in messages per second (default: unlimited). */
  ratePerPartition?: number;
  /** Partitions whose batches run concurrently in this member (default 1). */
  concurrency?: number;
  /** Backoff of a partition after its handler failed: doubles from `initialMs` up to `maxMs`. */
  retryBackoff?: { initialMs: number; maxMs: number };
}

/** One running subscription of a consumer to a queue. */
export interface QueueSubscription {
  readonly queue: QueueName;
  /** Partitions this member reads now (each partition has at most one reader in the group). */
  assignedPartitions(): number[];
  /**
   * Counts the group generations this member joined: it changes whenever the partitions may have
   * changed hands (even when this member kept the same ones). Absent when the backend cannot tell.
   */
  assignmentGeneration?(): number;
  /** Stops fetching new batches of these partitions (all when omitted); running batches finish. */
  pause(partitions?: number[]): void;
  resume(partitions?: number[]): void;
  /** The group's committed position per partition: the first offset not yet fully processed. */
  committedOffsets(): Promise<Map<number, number>>;
  /**
   * Graceful stop: no new batches; running handlers get `drainTimeoutMs` to finish, then their
   * signal aborts and the rest is handed back; the contiguous done prefix is committed; the
   * partitions are released to the other members.
   */
  stop(): Promise<void>;
}

/** Writes messages to an explicit partition of a queue (a scanner writes to its host's partition). */
export abstract class QueueProducer {
  /**
   * Appends `messages` to `partition` of `queue`, in order, after the ones of earlier calls
   * (calls to one partition are serialized in this process). Resolves when durable (Kafka
   * acks=all; Cassandra quorum writes). Creates the queue's topic on demand.
   */
  abstract publish(
    queue: QueueName,
    partition: number,
    messages: readonly (Buffer | string)[],
  ): Promise<void>;
  /** Partition count of the queue's topic (creating it on demand). */
  abstract partitionCount(queue: QueueName): Promise<number>;
  abstract close(): Promise<void>;
}

/** Reads queues as one member of a reader group (the scheduler, the stats aggregator). */
export abstract class QueueConsumer {
  /** Joins the group for `queue` (creating the topic on demand) and starts handing batches to `handler`. */
  abstract subscribe(
    queue: QueueName,
    handler: BatchHandler,
    options?: SubscribeOptions,
  ): Promise<QueueSubscription>;
  /** Stops every subscription gracefully. */
  abstract close(): Promise<void>;
}

/** Settings common to both consumer implementations. */
export interface QueueConsumerSettings {
  /** Reader group (e.g. `scheduler`): the group's members share the partitions, one reader each. */
  group: string;
  /** How often, while a batch runs, the done prefix is committed (and Kafka heartbeats sent). Default 1000. */
  commitIntervalMs?: number;
  /** How long `stop()` lets running handlers finish before aborting their signal. Default 10000. */
  drainTimeoutMs?: number;
  /** The time the per-partition rate limiters measure (its monotonicMs). Default: the system clock. */
  clock?: Clock;
}

export const DEFAULT_MAX_BATCH_SIZE = 100;
export const DEFAULT_COMMIT_INTERVAL_MS = 1000;
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRY_BACKOFF = { initialMs: 1000, maxMs: 60_000 };

/** The few log calls the queue makes; ContextLogger of @ostore/shared/observability fits. */
export interface QueueLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export const silentLog: QueueLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Why a batch's signal aborted. */
export class HandBack extends Error {
  constructor(readonly why: 'stopping' | 'revoked') {
    super(why === 'stopping' ? 'the consumer is stopping' : 'the partition moved to another reader');
    this.name = 'HandBack';
  }
}
