import { randomUUID } from 'crypto';
import { topicName } from '@ostore/queue/contracts';
import { sleep } from '@ostore/shared/clock';
import { PartitionProgress } from '../batch-runner';
import { ShellConsumer, SubscriptionShell, SubscriptionSpec } from '../consumer-shell';
import { HandBack, QueueLog, QueueMessage } from '../queue';
import { QueueMetrics } from '../queue.metrics';
import { CassandraQueueConsumerSettings, CassandraQueueSettings } from './cassandra-queue.options';
import { QueueRow, QueueTableStore } from './cassandra-queue.repository';

/** QueueConsumer over the Cassandra tables: lease-based partition assignment, polling reads. */
export class CassandraQueueConsumer extends ShellConsumer<QueueTableStore, CassandraQueueConsumerSettings> {
  constructor(
    repo: QueueTableStore,
    private readonly queueSettings: CassandraQueueSettings,
    ...rest: [settings: CassandraQueueConsumerSettings, metrics?: QueueMetrics, log?: QueueLog]
  ) {
    super(repo, ...rest);
  }

  protected open(spec: SubscriptionSpec<CassandraQueueConsumerSettings>): CassandraSubscription {
    const topic = topicName(this.queueSettings.cluster, spec.queue);
    return new CassandraSubscription(this.backend, topic, this.queueSettings.partitions, spec);
  }
}

class LeaseLost extends Error {
  constructor(part: number) {
    super(`the lease of partition ${part} is no longer ours`);
    this.name = 'LeaseLost';
  }
}

/**
 * Partition assignment without a coordinator: each member heartbeats a row in `queue_readers`,
 * counts the live members, and holds at most its fair share ceil(partitions / members) of
 * partition leases. A lease is an `owner` cell with a TTL in `queue_offsets`, taken with
 * `IF owner = null`, renewed with `IF owner = me`: Paxos makes the holder unique, so each
 * partition has at most one reader. A member above its share drains the extra partitions
 * (committing what is done) and releases them; a member below it takes free ones. A member that
 * dies stops renewing, its leases expire after `leaseTtlSeconds`, and the others take them.
 */
class CassandraSubscription extends SubscriptionShell<CassandraQueueConsumerSettings> {
  private readonly member = randomUUID();
  private partitions = 0;
  private readonly workers = new Map<number, PartitionWorker>();
  private readonly closing = new AbortController();
  private heartbeats?: Promise<void>;

  constructor(
    readonly repo: QueueTableStore,
    readonly topic: string,
    private readonly defaultPartitions: number,
    spec: SubscriptionSpec<CassandraQueueConsumerSettings>,
  ) {
    super(spec);
  }

  get group(): string {
    return this.settings.group;
  }

  get leaseTtlSeconds(): number {
    return this.settings.leaseTtlSeconds ?? 15;
  }

  async start(): Promise<void> {
    this.partitions = await this.repo.topicPartitions(this.topic, this.defaultPartitions);
    await this.heartbeat();
    this.heartbeats = this.heartbeatLoop();
  }

  assignedPartitions(): number[] {
    return [...this.workers.values()]
      .filter((w) => !w.leaving)
      .map((w) => w.part)
      .sort((a, b) => a - b);
  }

  async committedOffsets(): Promise<Map<number, number>> {
    const leases = await this.repo.leases(this.topic, this.group, this.partitions);
    return new Map(leases.filter((l) => l.offset !== undefined).map((l) => [l.part, l.offset!]));
  }

  protected async shutdown(): Promise<void> {
    // Leases stay renewed by the heartbeat loop while the workers drain.
    await Promise.all([...this.workers.values()].map((w) => this.release(w)));
    this.closing.abort();
    await this.heartbeats;
    // A heartbeat that raced with the first round may have taken a partition: hand it back too.
    await Promise.all([...this.workers.values()].map((w) => this.release(w)));
    await this.repo.leave(this.topic, this.group, this.member).catch(() => undefined);
  }

  /** Hands a partition back: drain its worker (commits what is done), then release the lease. */
  private async release(worker: PartitionWorker): Promise<void> {
    if (worker.leaving) return worker.leaving;
    worker.leaving = (async () => {
      await worker.drain();
      worker.released = true;
      if (!worker.lost) {
        await this.repo
          .release(this.topic, worker.part, this.group, this.member)
          .catch((e) =>
            this.log.warn('could not release a queue lease; it expires by TTL', { err: String(e) }),
          );
      }
      this.workers.delete(worker.part);
      this.metrics.forgetLag(this.queue, [worker.part]);
    })();
    return worker.leaving;
  }

  private async heartbeatLoop(): Promise<void> {
    const every = this.settings.heartbeatMs ?? 3000;
    while (await sleep(every, this.closing.signal)) {
      try {
        await this.heartbeat();
      } catch (e) {
        this.log.warn('queue heartbeat failed', { queue: this.queue, group: this.group, err: String(e) });
      }
    }
  }

  private async heartbeat(): Promise<void> {
    await this.repo.join(this.topic, this.group, this.member, this.leaseTtlSeconds);
    await Promise.all(
      [...this.workers.values()].map(async (w) => {
        if (w.lost || w.released) return;
        if (!(await this.repo.renew(this.topic, w.part, this.group, this.member, this.leaseTtlSeconds))) {
          this.log.warn('queue lease lost', { queue: this.queue, group: this.group, partition: w.part });
          w.revoke();
          void this.release(w);
        }
      }),
    );
    if (this.stopping) return;

    const members = Math.max(1, (await this.repo.members(this.topic, this.group)).length);
    const share = Math.ceil(this.partitions / members);
    const active = [...this.workers.values()].filter((w) => !w.leaving);
    if (active.length > share) {
      const extra = active.sort((a, b) => b.part - a.part).slice(0, active.length - share);
      this.log.info('queue partitions handed over', {
        queue: this.queue,
        members,
        partitions: extra.map((w) => w.part),
      });
      extra.forEach((w) => void this.release(w));
    } else if (active.length < share) {
      const leases = await this.repo.leases(this.topic, this.group, this.partitions);
      const free = shuffle(
        leases.filter((l) => l.owner === undefined && !this.workers.has(l.part)).map((l) => l.part),
      );
      let wanted = share - active.length;
      for (const part of free) {
        if (wanted === 0 || this.stopping) break;
        if (await this.repo.acquire(this.topic, part, this.group, this.member, this.leaseTtlSeconds)) {
          const worker = new PartitionWorker(this, part, this.member);
          this.workers.set(part, worker);
          worker.start(() => void this.release(worker));
          wanted--;
        }
      }
    }
    await this.updateLag();
  }

  private async updateLag(): Promise<void> {
    const parts = [...this.workers.keys()];
    const heads = await this.repo.heads(this.topic, parts);
    for (const part of parts) {
      const worker = this.workers.get(part);
      const head = heads.get(part);
      if (worker?.progress && head !== undefined)
        this.metrics.setLag(this.queue, part, head - worker.progress.committed);
    }
  }
}

/**
 * Reads one leased partition: polls `num >= position LIMIT fetchSize`, hands the contiguous run
 * of rows to runBatch, and commits with `UPDATE ... IF owner = me`.
 *
 * Gaps: nums are reserved before their rows are written, so a reader can see num n+1 before n.
 * It never delivers past a missing num; it waits for it up to `gapTimeoutMs` and then skips it
 * (a producer died between reserving and writing, or the row expired unread). A new group (no
 * stored offset) starts at the first row still alive instead of waiting on long-expired nums.
 */
class PartitionWorker {
  progress?: PartitionProgress;
  leaving?: Promise<void>;
  /** Drained; its lease is being or has been given up, so heartbeats stop renewing it. */
  released = false;
  lost = false;
  private readonly halt = new AbortController();
  private readonly handBack = new AbortController();
  private loop?: Promise<void>;

  constructor(
    private readonly sub: CassandraSubscription,
    readonly part: number,
    private readonly member: string,
  ) {}

  /** Starts reading; if the reader crashes, the partition is released so a member takes it again. */
  start(onCrash: () => void): void {
    this.loop = this.run().catch((e) => {
      this.sub.log.error('queue partition reader failed; releasing the partition', {
        queue: this.sub.queue,
        partition: this.part,
        err: String(e),
      });
      onCrash();
    });
  }

  /** Stops taking new work; running handlers get the drain time, then their signal aborts. */
  async drain(): Promise<void> {
    this.halt.abort();
    const timer = setTimeout(() => this.handBack.abort(new HandBack('stopping')), this.sub.drainTimeoutMs);
    try {
      await this.loop;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The lease is gone: another member may read the partition now, so stop at once. */
  revoke(): void {
    this.lost = true;
    this.halt.abort();
    this.handBack.abort(new HandBack('revoked'));
  }

  private async run(): Promise<void> {
    const { sub } = this;
    const settings = sub.settings;
    const poll = settings.pollIntervalMs ?? 500;
    const gapTimeoutMs = settings.gapTimeoutMs ?? 60_000;
    let position: number | undefined;
    for (;;) {
      try {
        position = await sub.repo.offset(sub.topic, this.part, sub.group);
        break;
      } catch (e) {
        sub.log.warn('queue offset read failed', { queue: sub.queue, partition: this.part, err: String(e) });
        if (!(await sleep(poll, this.halt.signal))) return;
      }
    }
    let gapSince: number | undefined;

    while (!this.halt.signal.aborted) {
      if (sub.isPaused(this.part)) {
        await sleep(poll, this.halt.signal);
        continue;
      }
      let rows: QueueRow[];
      try {
        rows = await sub.repo.read(sub.topic, this.part, position ?? 0, settings.fetchSize ?? 500);
      } catch (e) {
        sub.log.warn('queue poll failed', { queue: sub.queue, partition: this.part, err: String(e) });
        await sleep(poll, this.halt.signal);
        continue;
      }
      if (rows.length === 0) {
        await sleep(poll, this.halt.signal);
        continue;
      }
      if (position === undefined) position = rows[0].num;
      if (rows[0].num > position) {
        gapSince ??= Date.now();
        if (Date.now() - gapSince < gapTimeoutMs) {
          await sleep(poll, this.halt.signal);
          continue;
        }
        sub.log.warn('queue nums skipped after the gap timeout', {
          queue: sub.queue,
          partition: this.part,
          from: position,
          to: rows[0].num - 1,
        });
        sub.metrics.skipped.inc({ queue: sub.queue }, rows[0].num - position);
      }
      gapSince = undefined;
      let end = 1;
      while (end < rows.length && rows[end].num === rows[end - 1].num + 1) end++;
      const messages: QueueMessage[] = rows
        .slice(0, end)
        .map((r) => ({ queue: sub.queue, partition: this.part, offset: r.num, value: r.value }));

      this.progress ??= new PartitionProgress(position);
      const result = await sub.process({
        partition: this.part,
        messages,
        progress: this.progress,
        commit: async (p) => {
          if (!(await sub.repo.commit(sub.topic, this.part, sub.group, this.member, p)))
            throw new LeaseLost(this.part);
        },
        signal: this.handBack.signal,
        mayStart: () => !this.halt.signal.aborted,
        tickMs: sub.commitIntervalMs,
        ownsCommitError: (e) => e instanceof LeaseLost,
      });
      position = result.position;
      if (result.commitError instanceof LeaseLost) {
        sub.log.warn('queue lease lost while committing', { queue: sub.queue, partition: this.part });
        this.revoke();
        break;
      }
    }
  }
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}
