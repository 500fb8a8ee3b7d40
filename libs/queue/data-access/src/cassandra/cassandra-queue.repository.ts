import { types } from 'cassandra-driver';
import { CassandraClient, consistencyOf } from '@ostore/shared/cassandra';

export interface QueueRow {
  num: number;
  value: Buffer;
}

export interface PartitionLease {
  part: number;
  /** The member holding the lease; undefined when free (no owner cell, or '' after a release). */
  owner?: string;
  /** The reader group's committed position: the first num not yet fully processed. */
  offset?: number;
}

/** Single-partition unlogged batches stay under Cassandra's batch_size_fail_threshold (50 KiB). */
const BATCH_BYTES = 32 * 1024;
const BATCH_ROWS = 200;
/** Attempts at the compare-and-set of a partition's head before giving up (contention). */
const RESERVE_ATTEMPTS = 50;

const long = (n: number) => types.Long.fromNumber(n);
const num = (v: unknown): number => (v instanceof types.Long ? v.toNumber() : Number(v));
const optNum = (v: unknown): number | undefined => (v === null || v === undefined ? undefined : num(v));

/**
 * The storage operations of the table queue. CassandraQueueRepository is the real one; the
 * testing entry point has an in-memory one with the same semantics (TTLs, compare-and-set).
 */
export interface QueueTableStore {
  topicPartitions(topic: string, partitions: number): Promise<number>;
  reserve(topic: string, part: number, n: number, guess?: number): Promise<{ first: number; next: number }>;
  append(
    topic: string,
    part: number,
    first: number,
    values: readonly Buffer[],
    ttlSeconds: number,
  ): Promise<void>;
  read(topic: string, part: number, from: number, limit: number): Promise<QueueRow[]>;
  heads(topic: string, parts: number[]): Promise<Map<number, number>>;
  leases(topic: string, reader: string, partitions: number): Promise<PartitionLease[]>;
  offset(topic: string, part: number, reader: string): Promise<number | undefined>;
  acquire(topic: string, part: number, reader: string, member: string, ttlSeconds: number): Promise<boolean>;
  renew(topic: string, part: number, reader: string, member: string, ttlSeconds: number): Promise<boolean>;
  release(topic: string, part: number, reader: string, member: string): Promise<boolean>;
  commit(topic: string, part: number, reader: string, member: string, offset: number): Promise<boolean>;
  join(topic: string, reader: string, member: string, ttlSeconds: number): Promise<void>;
  leave(topic: string, reader: string, member: string): Promise<void>;
  members(topic: string, reader: string): Promise<string[]>;
}

/**
 * The CQL of the Cassandra-table queue (tables of migration 003-queue). Every write that decides
 * something — reserving nums, taking, renewing or releasing a lease, committing an offset — is a
 * lightweight transaction on one partition; plain reads and appends are quorum operations.
 */
export class CassandraQueueRepository implements QueueTableStore {
  constructor(private readonly db: CassandraClient) {}

  private get serial(): number {
    return consistencyOf(this.db.options.serialConsistency);
  }

  /** The queue's partition count: `partitions` if this call created it, else the stored one. */
  async topicPartitions(topic: string, partitions: number): Promise<number> {
    const rs = await this.db.execute(
      'INSERT INTO queue_topics (queue, partitions, created_at) VALUES (?, ?, toTimestamp(now())) IF NOT EXISTS',
      [topic, partitions],
    );
    return rs.wasApplied() ? partitions : Number(rs.first()['partitions']);
  }

  /**
   * Reserves `n` consecutive nums of a queue partition with a compare-and-set on its head, and
   * returns the first. `guess` is the head the caller last saw (a wrong guess costs one round).
   * A CAS write timeout leaves it unknown whether the reservation applied; retrying then may
   * skip our own range, which readers see as a gap and skip after their gap timeout — never a
   * collision, since no two callers can both win the same compare-and-set.
   */
  async reserve(
    topic: string,
    part: number,
    n: number,
    guess?: number,
  ): Promise<{ first: number; next: number }> {
    let expected = guess;
    for (let attempt = 0; attempt < RESERVE_ATTEMPTS; attempt++) {
      const next = (expected ?? 0) + n;
      const rs =
        expected === undefined
          ? await this.db.execute(
              'UPDATE queue_heads SET next = ? WHERE queue = ? AND part = ? IF next = null',
              [long(next), topic, part],
            )
          : await this.db.execute(
              'UPDATE queue_heads SET next = ? WHERE queue = ? AND part = ? IF next = ?',
              [long(next), topic, part, long(expected)],
            );
      if (rs.wasApplied()) return { first: expected ?? 0, next };
      expected = optNum(rs.first()['next']);
    }
    throw new Error(`could not reserve ${n} nums of ${topic}/${part} after ${RESERVE_ATTEMPTS} attempts`);
  }

  /**
   * Writes values at nums first, first+1, ... with a TTL (the only way rows ever go away), in
   * single-partition unlogged batches — each applied atomically — in num order.
   */
  async append(
    topic: string,
    part: number,
    first: number,
    values: readonly Buffer[],
    ttlSeconds: number,
  ): Promise<void> {
    const insert = 'INSERT INTO queue_messages (queue, part, num, value) VALUES (?, ?, ?, ?) USING TTL ?';
    let batch: { query: string; params: unknown[] }[] = [];
    let bytes = 0;
    const flush = async () => {
      if (batch.length === 1) await this.db.execute(batch[0].query, batch[0].params);
      else if (batch.length > 1) await this.db.batch(batch, { logged: false });
      batch = [];
      bytes = 0;
    };
    for (let i = 0; i < values.length; i++) {
      if (batch.length > 0 && (bytes + values[i].length > BATCH_BYTES || batch.length >= BATCH_ROWS))
        await flush();
      batch.push({ query: insert, params: [topic, part, long(first + i), values[i], ttlSeconds] });
      bytes += values[i].length;
    }
    await flush();
  }

  /**
   * Up to `limit` rows from num `from` on. The slice always starts at the reader's position, so
   * the expired rows below it (TTL'd, purged by compaction) are never scanned.
   */
  async read(topic: string, part: number, from: number, limit: number): Promise<QueueRow[]> {
    const rs = await this.db.execute(
      'SELECT num, value FROM queue_messages WHERE queue = ? AND part = ? AND num >= ? LIMIT ?',
      [topic, part, long(from), limit],
      { isIdempotent: true },
    );
    return rs.rows.map((r) => ({ num: num(r['num']), value: r['value'] as Buffer }));
  }

  /** Next num to be reserved, per partition (absent: nothing was ever written). */
  async heads(topic: string, parts: number[]): Promise<Map<number, number>> {
    if (parts.length === 0) return new Map();
    const rs = await this.db.execute(
      'SELECT part, next FROM queue_heads WHERE queue = ? AND part IN ?',
      [topic, parts],
      {
        isIdempotent: true,
      },
    );
    return new Map(rs.rows.map((r) => [Number(r['part']), num(r['next'])]));
  }

  /** Lease holder and committed offset of each partition for one reader group. */
  async leases(topic: string, reader: string, partitions: number): Promise<PartitionLease[]> {
    const parts = Array.from({ length: partitions }, (_, i) => i);
    const rs = await this.db.execute(
      'SELECT part, owner, offset FROM queue_offsets WHERE queue = ? AND part IN ? AND reader = ?',
      [topic, parts, reader],
      { isIdempotent: true },
    );
    const byPart = new Map(rs.rows.map((r) => [Number(r['part']), r]));
    return parts.map((part) => {
      const r = byPart.get(part);
      return { part, owner: (r?.['owner'] as string | null) || undefined, offset: optNum(r?.['offset']) };
    });
  }

  /** The committed offset, read through Paxos (SERIAL) so the last commit of the previous owner is seen. */
  async offset(topic: string, part: number, reader: string): Promise<number | undefined> {
    const rs = await this.db.execute(
      'SELECT offset FROM queue_offsets WHERE queue = ? AND part = ? AND reader = ?',
      [topic, part, reader],
      { consistency: this.serial, isIdempotent: true },
    );
    return optNum(rs.first()?.['offset']);
  }

  /**
   * Takes a free partition (no owner, or '' once released): the lease cell expires after
   * `ttlSeconds` unless renewed.
   */
  async acquire(
    topic: string,
    part: number,
    reader: string,
    member: string,
    ttlSeconds: number,
  ): Promise<boolean> {
    const rs = await this.db.execute(
      "UPDATE queue_offsets USING TTL ? SET owner = ? WHERE queue = ? AND part = ? AND reader = ? IF owner IN (null, '')",
      [ttlSeconds, member, topic, part, reader],
    );
    return rs.wasApplied();
  }

  /** Extends our lease; false when it is no longer ours (expired, taken). */
  async renew(
    topic: string,
    part: number,
    reader: string,
    member: string,
    ttlSeconds: number,
  ): Promise<boolean> {
    const rs = await this.db.execute(
      'UPDATE queue_offsets USING TTL ? SET owner = ? WHERE queue = ? AND part = ? AND reader = ? IF owner = ?',
      [ttlSeconds, member, topic, part, reader, member],
    );
    return rs.wasApplied();
  }

  /**
   * Gives a lease up at once by writing an empty owner — not a DELETE, so no tombstone — with a
   * 1 s TTL so that even that cell goes away.
   */
  async release(topic: string, part: number, reader: string, member: string): Promise<boolean> {
    const rs = await this.db.execute(
      "UPDATE queue_offsets USING TTL 1 SET owner = '' WHERE queue = ? AND part = ? AND reader = ? IF owner = ?",
      [topic, part, reader, member],
    );
    return rs.wasApplied();
  }

  /** Moves the offset, only while `member` holds the lease (fencing a member that lost it). */
  async commit(
    topic: string,
    part: number,
    reader: string,
    member: string,
    offset: number,
  ): Promise<boolean> {
    const rs = await this.db.execute(
      'UPDATE queue_offsets SET offset = ? WHERE queue = ? AND part = ? AND reader = ? IF owner = ?',
      [long(offset), topic, part, reader, member],
    );
    return rs.wasApplied();
  }

  /** Announces a live member of a reader group until `ttlSeconds` pass without another call. */
  async join(topic: string, reader: string, member: string, ttlSeconds: number): Promise<void> {
    await this.db.execute(
      'INSERT INTO queue_readers (queue, reader, member, joined_at) VALUES (?, ?, ?, toTimestamp(now())) USING TTL ?',
      [topic, reader, member, ttlSeconds],
      { isIdempotent: true },
    );
  }

  /**
   * Leaves by rewriting the member row with a 1 s TTL (no DELETE): the others count one member
   * less a second later and take over its share.
   */
  leave(topic: string, reader: string, member: string): Promise<void> {
    return this.join(topic, reader, member, 1);
  }

  async members(topic: string, reader: string): Promise<string[]> {
    const rs = await this.db.execute(
      'SELECT member FROM queue_readers WHERE queue = ? AND reader = ?',
      [topic, reader],
      { isIdempotent: true },
    );
    return rs.rows.map((r) => String(r['member']));
  }
}
