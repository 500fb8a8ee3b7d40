import type { MessageContract, QueueName } from '@ostore/queue/contracts';
import type { BatchHandler, QueueBatch, QueueMessage } from '@ostore/queue/data-access';
import { sleep } from '@ostore/shared/clock';
import type { ContextLogger } from '@ostore/shared/observability';
import { RetryableFailure } from './candidate-failure';
import { LifecycleMetrics } from './lifecycle.metrics';

/** One kind of candidate: how to read it, which key it touches, how to apply it. */
export interface CandidateKind<T> {
  queue: QueueName;
  contract: MessageContract<T>;
  keyOf(candidate: T): string;
  /** Applies the candidate; throws RetryableFailure only (other errors are its own business). */
  execute(candidate: T): Promise<void>;
}

export interface CandidateBatchSettings {
  /** Candidates of one batch applied at the same time. */
  concurrency: number;
  /** Attempts at a candidate failing with retryable errors before the batch is handed back. */
  retryAttempts: number;
  /** Backoff between those attempts: doubles from `initialMs` up to `maxMs`. */
  retryBackoff: { initialMs: number; maxMs: number };
}

/** A counting semaphore. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async take(): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((r) => this.waiting.push(r));
    return () => {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}

/**
 * Turns a CandidateKind into the queue's BatchHandler.
 *
 * Inside a batch, candidates run concurrently (at most `concurrency`), except that candidates of
 * the same key run one after the other in offset order (they would only contend for the key's
 * claim). Each message is marked done only once fully processed; the queue library commits only
 * the highest contiguous done offset, so a crash or a hand-back redelivers exactly what was not
 * finished (and handling is idempotent, so redelivering finished work is harmless too).
 *
 * - A message that is not a valid candidate is logged, counted and marked done: poison never
 *   blocks the partition.
 * - A retryable failure is retried in place with a doubling backoff; when the attempts run out it
 *   is counted as an apply failure, no new candidate is started, and once the running ones have
 *   settled the handler throws: the queue redelivers from the first undone message after its own
 *   backoff. (While Cassandra is unavailable the partition waits instead of skipping work.)
 * - When the batch's signal aborts (shutdown past its drain time, partition revoked), no new
 *   candidate starts and retries stop; running applications finish their current step; the
 *   handler then throws so that the rest is handed back.
 */
export class CandidateBatchRunner {
  constructor(
    private readonly settings: CandidateBatchSettings,
    private readonly metrics: LifecycleMetrics,
    private readonly log: ContextLogger,
  ) {}

  handler<T>(kind: CandidateKind<T>): BatchHandler {
    return (batch) => this.run(kind, batch);
  }

  private async run<T>(kind: CandidateKind<T>, batch: QueueBatch): Promise<void> {
    const slots = new Slots(this.settings.concurrency);
    const lastOfKey = new Map<string, Promise<void>>();
    let failure: unknown;
    const stopped = () => failure !== undefined || batch.signal.aborted;

    const tasks = batch.messages.map((message) => {
      const candidate = this.decode(kind, batch, message);
      if (candidate === undefined) return Promise.resolve();
      const key = kind.keyOf(candidate);
      const task = (lastOfKey.get(key) ?? Promise.resolve()).then(async () => {
        if (stopped()) return;
        const free = await slots.take();
        try {
          if (stopped()) return;
          const outcome = await this.attempt(kind, batch, message, candidate);
          if (outcome === 'done') batch.done(message);
          else if (outcome !== 'handed-back') failure ??= outcome.error;
        } finally {
          free();
        }
      });
      lastOfKey.set(key, task);
      return task;
    });
    await Promise.all(tasks);
    if (batch.signal.aborted) throw batch.signal.reason ?? new Error('batch handed back');
    if (failure !== undefined) throw failure;
  }

  private decode<T>(kind: CandidateKind<T>, batch: QueueBatch, message: QueueMessage): T | undefined {
    try {
      return kind.contract.fromMessage(message.value);
    } catch (err) {
      this.metrics.badCandidates.inc({ queue: kind.queue });
      this.log.warn('not a valid candidate; passed over', {
        queue: kind.queue,
        partition: message.partition,
        offset: message.offset,
        err: (err as Error).message,
      });
      batch.done(message);
      return undefined;
    }
  }

  private async attempt<T>(
    kind: CandidateKind<T>,
    batch: QueueBatch,
    message: QueueMessage,
    candidate: T,
  ): Promise<'done' | 'handed-back' | { error: unknown }> {
    const { retryAttempts, retryBackoff } = this.settings;
    for (let attempt = 1; ; attempt++) {
      try {
        await kind.execute(candidate);
        return 'done';
      } catch (err) {
        if (!(err instanceof RetryableFailure)) {
          // execute() handles its own non-retryable errors; anything else is a bug: pass it over
          this.metrics.failures.inc({ action: 'unknown' });
          this.log.error('candidate handler failed unexpectedly; passed over', {
            queue: kind.queue,
            partition: message.partition,
            offset: message.offset,
            err,
          });
          return 'done';
        }
        const fields = { queue: kind.queue, partition: message.partition, offset: message.offset, attempt, err: err.message };
        if (attempt >= retryAttempts) {
          this.metrics.failures.inc({ action: err.action });
          this.log.error('candidate still failing; handing the batch back for redelivery', fields);
          return { error: err.cause };
        }
        this.log.warn('candidate failed; retrying', fields);
        const wait = Math.min(retryBackoff.maxMs, retryBackoff.initialMs * 2 ** (attempt - 1));
        if (!(await sleep(wait, batch.signal))) return 'handed-back';
      }
    }
  }
}
