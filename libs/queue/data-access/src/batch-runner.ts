import { QueueName } from '@ostore/queue/contracts';
import { sleep } from '@ostore/shared/clock';
import { OffsetTracker } from './offset-tracker';
import { BatchHandler, HandBack, QueueBatch, QueueMessage } from './queue';
import { QueueMetrics } from './queue.metrics';
import { TokenBucket } from './token-bucket';

/**
 * One partition's progress across batches: its OffsetTracker and the last position committed.
 * Commits only move forward and never run concurrently (a chain of promises), so a slow commit
 * can never be overtaken by an older, lower one.
 */
export class PartitionProgress {
  readonly tracker: OffsetTracker;
  private committedAt: number;
  private chain: Promise<void> = Promise.resolve();

  constructor(start: number) {
    this.tracker = new OffsetTracker(start);
    this.committedAt = start;
  }

  get committed(): number {
    return this.committedAt;
  }

  /** Writes the committable position with `write` if it is ahead of the last commit. */
  flush(write: (position: number) => Promise<void>): Promise<void> {
    const run = this.chain.then(async () => {
      const next = this.tracker.committable();
      if (next <= this.committedAt) return;
      await write(next);
      this.committedAt = Math.max(this.committedAt, next);
    });
    this.chain = run.catch(() => undefined);
    return run;
  }
}

export interface BatchRun {
  queue: QueueName;
  partition: number;
  /** Fetched messages of the partition, in order. */
  messages: readonly QueueMessage[];
  handler: BatchHandler;
  progress: PartitionProgress;
  /** Persists a committable position (Kafka commitOffsets, Cassandra fenced LWT). */
  commit(position: number): Promise<void>;
  maxBatchSize: number;
  limiter?: TokenBucket;
  /** Aborted to hand the work back (drain time over, partition lost). */
  signal: AbortSignal;
  /** False once no new handler call may start (stopping, paused). */
  mayStart(): boolean;
  /** Called every `tickMs` while the run lasts (Kafka: heartbeat); a throw hands the batch back. */
  tick?(): Promise<void>;
  tickMs: number;
  /** After `signal` aborts, how long a handler may still run before it is abandoned (default: forever). */
  abandonAfterMs?: number;
  metrics: QueueMetrics;
}

export interface BatchResult {
  /** Messages done during this run. */
  processed: number;
  /** Where reading must continue: the first message not done, or after the last one. */
  position: number;
  /** The handler's error, when it failed (not when it handed work back). */
  failure?: unknown;
  /** The run stopped before the end because work was handed back. */
  handedBack: boolean;
  /** A handler ignored its aborted signal past `abandonAfterMs` and was left running. */
  abandoned: boolean;
  /** The last commit failed (Kafka: rebalance; Cassandra: lease lost); `position` is not durable. */
  commitError?: unknown;
}

/**
 * Runs one fetched batch through the handler: in chunks of at most `maxBatchSize`, paced by the
 * rate limit, tracking `done()` per message, committing the contiguous done prefix every
 * `tickMs` while the handler works and once at the end. Stops at the first failed chunk: the
 * rest of the fetched messages are not handed to the handler and will be fetched again from
 * `position`. Shared by both implementations; backends only fetch, commit and heartbeat.
 */
export async function runBatch(run: BatchRun): Promise<BatchResult> {
  const { tracker } = run.progress;
  const local = new AbortController();
  const forward = () => local.abort(run.signal.reason);
  if (run.signal.aborted) forward();
  else run.signal.addEventListener('abort', forward, { once: true });

  let processed = 0;
  let failure: unknown;
  let handedBack = false;
  let commitError: unknown;
  let abandoned = false;

  let ticking: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (ticking) return;
    ticking = (async () => {
      try {
        await run.tick?.();
      } catch {
        local.abort(new HandBack('revoked'));
      }
      await run.progress.flush(run.commit).catch((e) => (commitError = e));
    })().finally(() => (ticking = undefined));
  }, run.tickMs);

  const chunkSize = Math.max(
    1,
    Math.min(run.maxBatchSize, run.limiter ? Math.ceil(run.limiter.ratePerSecond) : Infinity),
  );
  try {
    for (let i = 0; i < run.messages.length;) {
      if (local.signal.aborted || !run.mayStart()) {
        handedBack = true;
        break;
      }
      const chunk = run.messages.slice(i, i + chunkSize);
      i += chunk.length;
      const wait = run.limiter?.reserve(chunk.length) ?? 0;
      if (wait > 0 && !(await sleep(wait, local.signal))) {
        handedBack = true;
        break;
      }
      for (const m of chunk) tracker.deliver(m.offset);
      const inChunk = new Set(chunk.map((m) => m.offset));
      let open = true;
      const complete = (m: QueueMessage) => {
        if (tracker.complete(m.offset)) {
          processed++;
          run.metrics.processed.inc({ queue: run.queue });
        }
      };
      const batch: QueueBatch = {
        queue: run.queue,
        partition: run.partition,
        messages: chunk,
        signal: local.signal,
        done: (m) => {
          if (!inChunk.has(m.offset)) throw new Error(`offset ${m.offset} is not in this batch`);
          if (open) complete(m);
        },
      };
      try {
        await settleOrAbandon(run.handler(batch), local.signal, run.abandonAfterMs, () => (abandoned = true));
        open = false;
        chunk.forEach(complete);
      } catch (e) {
        open = false;
        if (local.signal.aborted) handedBack = true;
        else {
          failure = e;
          run.metrics.failed.inc(
            { queue: run.queue },
            chunk.filter((m) => tracker.committable() <= m.offset).length,
          );
        }
        break;
      }
    }
  } finally {
    clearInterval(timer);
    run.signal.removeEventListener('abort', forward);
    await ticking;
  }
  await run.progress.flush(run.commit).then(
    () => (commitError = undefined),
    (e) => (commitError = e),
  );
  return { processed, position: tracker.committable(), failure, handedBack, abandoned, commitError };
}

/**
 * Awaits the handler; once `signal` has aborted, waits at most `graceMs` more, then gives up on
 * it (`onAbandon`) so that a stop or a rebalance is never held forever by a handler that ignores
 * its signal. The abandoned call keeps running unobserved: its late `done()` calls are ignored
 * and its messages are delivered again (handlers are idempotent).
 */
function settleOrAbandon(
  handling: Promise<void>,
  signal: AbortSignal,
  graceMs: number | undefined,
  onAbandon: () => void,
): Promise<void> {
  if (graceMs === undefined) return handling;
  return new Promise<void>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      timer = setTimeout(() => {
        onAbandon();
        handling.catch(() => undefined);
        reject(signal.reason);
      }, graceMs);
    };
    if (signal.aborted) arm();
    else signal.addEventListener('abort', arm, { once: true });
    handling.then(
      () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', arm);
        resolve();
      },
      (e) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', arm);
        reject(e);
      },
    );
  });
}
