import { randomUUID } from 'crypto';
import { usageDeltaMessage, UsageDeltaKind, UsageDeltaSource } from '@ostore/queue/contracts';
import { Clock } from '@ostore/shared/clock';
import { QueueLog, silentLog } from '../queue';
import { KeyedMessage, usageKeyOf } from './usage-delta.message';
import { UsageDeltaMetrics } from './usage-delta.metrics';
import { UsageDeltaSpool } from './usage-delta.spool';

/**
 * One size change as the S3 core reports it (structurally its `UsageEvent`, so a publisher is the
 * core's `UsageRecorder` without this lib depending on the core).
 */
export interface UsageChange {
  bucketId: string;
  bucket: string;
  kind: UsageDeltaKind;
  bytes: number;
  objects?: number;
  /** A caller-derived id for a change several processes may report (else a fresh one is drawn). */
  eventId?: string;
}

export type { KeyedMessage } from './usage-delta.message';

/** Where batches go (Kafka in the apps, a fake in unit tests). */
export interface UsageDeltaSink {
  /** Writes the messages in order; resolves when they are durable, rejects if they may not be. */
  send(messages: readonly KeyedMessage[]): Promise<void>;
}

export interface UsageDeltaSettings {
  source: UsageDeltaSource;
  /** The emitting host (pod name). */
  sourceHost: string;
  /** Most deltas per send; a full batch is sent at once. */
  batchMax: number;
  /** Longest a delta waits for its batch to fill before it is sent anyway. */
  lingerMs: number;
  /** Deltas held in memory while the sink fails; beyond this, new deltas go to the spool (without one: dropped, counted). */
  bufferMax: number;
  /** Wait between failed sends: doubles from `initialMs` up to `maxMs`. */
  retryBackoff: { initialMs: number; maxMs: number };
  /**
   * Where deltas go that cannot wait in memory (a full buffer, the shutdown deadline, a delta
   * after the close), to be sent again once the sink takes batches. Without one they are dropped.
   */
  spool?: UsageDeltaSpool;
}

export const DEFAULT_USAGE_DELTA_SETTINGS: Omit<UsageDeltaSettings, 'source' | 'sourceHost' | 'spool'> = {
  batchMax: 500,
  lingerMs: 100,
  bufferMax: 50_000,
  retryBackoff: { initialMs: 500, maxMs: 30_000 },
};

/** Timers of the publisher (real ones by default, unref'd so that they never keep a process alive). */
export interface PublisherTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: PublisherTimers = {
  set: (fn, ms) => setTimeout(fn, ms).unref(),
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

/**
 * The S3 core's UsageRecorder that publishes each change as a UsageDelta (event time from the
 * injected Clock, a fresh event id for the consumer's deduplication) to the `usage` queue.
 *
 * `record()` never blocks and never throws: it encodes the delta and appends it to an in-memory
 * buffer. Batches leave when `batchMax` deltas are waiting, or `lingerMs` after the first one,
 * one send at a time and in buffer order (with a non-idempotent producer, two sends in flight
 * could reorder one bucket's deltas on a retry). A failed send keeps its batch at the head of the
 * buffer and is retried with backoff; a retried batch that had in fact been written is a
 * duplicate, which stats drop by event id. While the sink fails the buffer grows up to
 * `bufferMax`; deltas beyond that are written to the spool (fsync'd segments of at most
 * `batchMax`, `lingerMs` apart), and `close()` spools what its deadline leaves; once the buffer
 * is empty again, the spool's segments are loaded oldest first and sent like any batch, and a
 * segment is removed only after all of it was sent (a crash in between sends it again: a
 * duplicate). A delta is lost (counted as dropped) only when the spool cannot write it, or with
 * no spool configured.
 */
export class UsageDeltaPublisher {
  private buffer: KeyedMessage[] = [];
  private timer?: { handle: unknown; kind: 'linger' | 'retry' };
  private sending?: Promise<void>;
  private failures = 0;
  private dropping = false;
  private droppedAfterClose = false;
  private stopping = false;
  private closed = false;
  private abandoned = false;
  private closing: Promise<void> = Promise.resolve();
  private readonly settings: UsageDeltaSettings;
  private overflow: KeyedMessage[] = [];
  private spillTimer?: unknown;
  private readonly spills = new Set<Promise<void>>();
  /** Segments may be waiting (an earlier run's, or spilled since the last look). */
  private spoolMayHave = true;
  /** The segment loaded at the head of the buffer, and how many of its messages are still unsent. */
  private resend?: { id: string; left: number };
  private counting = false;
  private countAgain = false;

  constructor(
    private readonly sink: UsageDeltaSink,
    private readonly clock: Clock,
    settings: Pick<UsageDeltaSettings, 'source' | 'sourceHost'> & Partial<UsageDeltaSettings>,
    private readonly metrics: UsageDeltaMetrics = new UsageDeltaMetrics(),
    private readonly log: QueueLog = silentLog,
    private readonly timers: PublisherTimers = realTimers,
    private readonly newEventId: () => string = randomUUID,
  ) {
    this.settings = { ...DEFAULT_USAGE_DELTA_SETTINGS, ...settings };
    const { batchMax, bufferMax, lingerMs } = this.settings;
    if (!(Number.isInteger(batchMax) && batchMax >= 1 && Number.isInteger(bufferMax) && bufferMax >= batchMax && lingerMs >= 0))
      throw new Error(`usage delta settings need 1 <= batchMax <= bufferMax and lingerMs >= 0 (got ${batchMax}, ${bufferMax}, ${lingerMs})`);
    this.metrics.buffered.set(0);
    this.metrics.spoolPending.set(0);
    // an earlier run's segments are sent as soon as the sink takes batches
    if (this.settings.spool) {
      this.arm('linger', 0);
      this.countSpooled();
    }
  }

  /** Deltas waiting to be sent (including a batch being sent). */
  get buffered(): number {
    return this.buffer.length;
  }

  record(change: UsageChange): void {
    try {
      const spool = this.settings.spool;
      if (this.closed && !spool) return this.drop('closed', change);
      const full = this.buffer.length >= this.settings.bufferMax;
      if (full && !spool) return this.drop('buffer_full', change);
      const value = usageDeltaMessage({
        bucketId: change.bucketId,
        bucket: change.bucket,
        kind: change.kind,
        bytes: change.bytes,
        ...(change.objects === undefined ? {} : { objects: change.objects }),
        at: this.clock.now(),
        source: this.settings.source,
        sourceHost: this.settings.sourceHost,
        eventId: change.eventId ?? this.newEventId(),
      });
      if (this.closed || full) return this.overflowed({ key: usageKeyOf(change.bucketId), value }, change);
      this.buffer.push({ key: usageKeyOf(change.bucketId), value });
      this.metrics.buffered.set(this.buffer.length);
      this.schedule();
    } catch (e) {
      // a delta the contract refuses (a bug of the caller): counted and logged, never thrown at a request
      this.metrics.dropped.inc({ reason: 'invalid' });
      this.log.error('usage delta refused by its contract; dropped', { err: (e as Error).message, bucket: change?.bucket, kind: change?.kind });
    }
  }

  /**
   * Sends everything buffered now (no linger), then the spool's segments, waiting while the sink
   * fails, for up to `timeoutMs`; then spools what is left (without a spool: drops it, counted as
   * `shutdown`) and logs how many deltas stay in the spool (sent by the next run on the same
   * directory; lost if the directory goes with the pod). Later deltas go to the spool too
   * (without one: dropped as `closed`). Idempotent.
   */
  async close(timeoutMs: number): Promise<void> {
    if (this.stopping) return this.closing;
    this.stopping = true;
    this.clearTimer();
    let deadline: unknown;
    const expired = new Promise<'expired'>((resolve) => (deadline = this.timers.set(() => resolve('expired'), timeoutMs)));
    this.closing = Promise.race([this.sendRest(), expired]).then(async (outcome) => {
      this.timers.clear(deadline);
      this.closed = true;
      if (outcome === 'expired' && this.buffer.length > 0) {
        this.abandoned = true;
        // the loaded segment's unsent messages are still in its file
        const rest = this.buffer.slice(this.resend?.left ?? 0);
        this.buffer = [];
        this.metrics.buffered.set(0);
        if (this.settings.spool) this.overflow.push(...rest);
        else if (rest.length > 0) {
          this.metrics.dropped.inc({ reason: 'shutdown' }, rest.length);
          this.log.error('usage deltas not sent before the shutdown deadline; dropped', { count: rest.length, timeoutMs });
        }
      }
      this.spill();
      await Promise.all(this.spills);
      await this.reportLeftInSpool(timeoutMs);
    });
    return this.closing;
  }

  /** After the close: the spool's backlog, on the gauge and, when there is one, in the log. */
  private async reportLeftInSpool(timeoutMs: number): Promise<void> {
    const left = await this.settings.spool?.pending().catch(() => undefined);
    if (left === undefined) return;
    this.metrics.spoolPending.set(left);
    if (left > 0)
      this.log.error('usage deltas left in the spool at shutdown; the next run on this directory sends them', { count: left, timeoutMs });
  }

  /**
   * Sets the spool gauge from the spool (after a segment is written or removed): one count at a
   * time, and one more if asked meanwhile, so that the last count sees the last change.
   */
  private countSpooled(): void {
    if (this.counting) {
      this.countAgain = true;
      return;
    }
    this.counting = true;
    void this.settings
      .spool!.pending()
      .then((n) => this.metrics.spoolPending.set(n))
      .catch(() => undefined)
      .finally(() => {
        this.counting = false;
        if (this.countAgain) {
          this.countAgain = false;
          this.countSpooled();
        }
      });
  }

  /** Arms the linger timer for the first delta of a batch, or sends at once when a batch is full. */
  private schedule(): void {
    if (this.buffer.length === 0 || this.sending || this.stopping || this.timer?.kind === 'retry') return;
    const full = this.buffer.length >= this.settings.batchMax;
    if (this.timer && !full) return;
    this.clearTimer();
    this.arm('linger', full ? 0 : this.settings.lingerMs);
  }

  private arm(kind: 'linger' | 'retry', ms: number): void {
    const handle = this.timers.set(() => {
      if (this.timer?.handle !== handle) return;
      this.timer = undefined;
      this.kick();
    }, ms);
    this.timer = { handle, kind };
  }

  private clearTimer(): void {
    if (this.timer) this.timers.clear(this.timer.handle);
    this.timer = undefined;
  }

  private kick(): void {
    if (this.sending || this.stopping) return;
    this.sending = this.pump().then((outcome) => {
      this.sending = undefined;
      if (this.stopping) return;
      if (outcome === 'failed') this.arm('retry', this.backoffMs());
      else this.schedule();
    });
  }

  private backoffMs(): number {
    const { initialMs, maxMs } = this.settings.retryBackoff;
    return Math.min(maxMs, initialMs * 2 ** Math.min(30, this.failures - 1));
  }

  /** Sends batches from the head (loading spooled segments when it runs dry) until nothing is left or a send fails. */
  private async pump(): Promise<'empty' | 'failed'> {
    for (;;) {
      if (this.buffer.length === 0) await this.loadSpooled();
      if (this.buffer.length === 0 || this.abandoned) return 'empty';
      const batch = this.buffer.slice(0, this.settings.batchMax);
      try {
        await this.sink.send(batch);
      } catch (e) {
        if (this.abandoned) return 'failed';
        this.failures++;
        this.metrics.publishErrors.inc();
        // the first failure of an outage, then every 10th: the counter has the exact number
        if (this.failures === 1 || this.failures % 10 === 0)
          this.log.warn('usage deltas could not be published; retrying', {
            err: (e as Error).message,
            failures: this.failures,
            buffered: this.buffer.length,
          });
        return 'failed';
      }
      if (this.abandoned) return 'empty';
      // only this loop removes from the head, and record() only appends: the batch is still there
      this.buffer.splice(0, batch.length);
      this.metrics.published.inc(batch.length);
      if (this.resend) await this.sentFromSegment(batch.length);
      this.metrics.buffered.set(this.buffer.length);
      if (this.failures > 0) {
        this.log.info('usage deltas published again', { afterFailures: this.failures, buffered: this.buffer.length });
        this.failures = 0;
      }
      if (this.dropping && this.buffer.length < this.settings.bufferMax) this.dropping = false;
    }
  }

  /** With an empty buffer: puts the spool's oldest segment at its head. */
  private async loadSpooled(): Promise<void> {
    const spool = this.settings.spool;
    if (!spool || !this.spoolMayHave || this.resend || this.abandoned) return;
    for (;;) {
      this.spoolMayHave = false;
      const segment = await spool.oldest().catch((e: Error) => {
        this.log.error('usage delta spool unreadable; its segments wait', { err: e.message });
        return undefined;
      });
      if (!segment) return;
      if (segment.messages.length === 0) {
        await spool.remove(segment.id);
        continue;
      }
      this.spoolMayHave = true;
      this.resend = { id: segment.id, left: segment.messages.length };
      this.buffer = [...segment.messages, ...this.buffer];
      this.metrics.buffered.set(this.buffer.length);
      return;
    }
  }

  /** `n` messages from the head were sent: removes the loaded segment once all of it was. */
  private async sentFromSegment(n: number): Promise<void> {
    const r = this.resend!;
    const sent = Math.min(r.left, n);
    r.left -= sent;
    this.metrics.resent.inc(sent);
    if (r.left > 0) return;
    this.resend = undefined;
    await this.settings.spool!.remove(r.id).catch((e: Error) =>
      this.log.error('sent usage delta segment not removed; it will be sent again', { err: e.message, segment: r.id }),
    );
    this.countSpooled();
  }

  /** A delta that cannot wait in memory: collected, then spooled in segments of at most `batchMax`. */
  private overflowed(message: KeyedMessage, change: UsageChange): void {
    this.overflow.push(message);
    if (!this.dropping && !this.closed) {
      this.dropping = true;
      this.log.warn('usage delta buffer full; spooling deltas to disk until the sink recovers', {
        bufferMax: this.settings.bufferMax,
        bucket: change.bucket,
      });
    }
    if (this.overflow.length >= this.settings.batchMax || this.closed) this.spill();
    else this.spillTimer ??= this.timers.set(() => this.spill(), this.settings.lingerMs);
  }

  private spill(): void {
    if (this.spillTimer !== undefined) this.timers.clear(this.spillTimer);
    this.spillTimer = undefined;
    while (this.overflow.length > 0) {
      const chunk = this.overflow.splice(0, this.settings.batchMax);
      const written: Promise<void> = this.settings
        .spool!.append(chunk)
        .then(() => {
          this.metrics.spooled.inc(chunk.length);
          this.spoolMayHave = true;
          this.countSpooled();
        })
        .catch((e: Error) => {
          this.metrics.dropped.inc({ reason: 'spool_failed' }, chunk.length);
          this.log.error('usage deltas could not be spooled; lost', { err: e.message, count: chunk.length });
        })
        .finally(() => this.spills.delete(written));
      this.spills.add(written);
    }
  }

  /**
   * close(): waits for a running send, then sends the rest and the spool's segments (a pod's
   * spool may not outlive it: this is its last chance), retrying with backoff.
   */
  private async sendRest(): Promise<'sent'> {
    if (this.sending) await this.sending;
    this.spoolMayHave = true;
    while ((await this.pump()) === 'failed') await new Promise<void>((r) => this.timers.set(r, this.backoffMs()));
    return 'sent';
  }

  private drop(reason: 'buffer_full' | 'closed', change: UsageChange): void {
    this.metrics.dropped.inc({ reason });
    // logged once per episode of a full buffer (it ends when a send makes room) and once after the
    // close; the counter has every drop
    if (reason === 'closed' ? !this.droppedAfterClose : !this.dropping) {
      if (reason === 'closed') this.droppedAfterClose = true;
      else this.dropping = true;
      this.log.error(
        reason === 'closed' ? 'usage delta after shutdown; dropped' : 'usage delta buffer full; dropping deltas until the sink recovers',
        { bufferMax: this.settings.bufferMax, bucket: change.bucket, kind: change.kind, bytes: change.bytes },
      );
    }
  }
}
