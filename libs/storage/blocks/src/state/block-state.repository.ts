import type { types } from 'cassandra-driver';
import { CassandraClient, consistencyOf } from '@ostore/shared/cassandra';

/** Lifecycle of a block's status (static columns of its `block_refs` partition). */
export type BlockStatus = 'writing' | 'committed' | 'deleting';

/**
 * A block's status as trusted by the application: built only from a row whose `is_alive` is true.
 * Every write of the status columns writes all of them in one statement with one TTL choice, and
 * `is_alive = true` is among them; a row whose `is_alive` is gone is a leftover of an expired
 * in-flight write (or of a partial update that must not happen — seed 004) and is never trusted.
 */
export interface BlockState {
  blockId: string;
  status: BlockStatus;
  /** Bumped by every status transition and every new reference; the compare-and-set token. */
  version: number;
  md5: string;
  size: number;
  tier: string;
  createdAt: Date;
  /** The first reference in clustering order; undefined when the block has none. */
  firstRef?: string;
}

/** What a status read found: the trusted state, or a leftover that is not alive, or nothing. */
export type StatusRead =
  | { kind: 'alive'; state: BlockState }
  | { kind: 'broken'; status: string | null; tier: string | null; size: number | null; hasRef: boolean }
  | { kind: 'absent' };

/** One entry of the GC candidate index (`blocks_in_flight`). */
export interface GcCandidate {
  shard: number;
  hourBucket: number;
  blockId: string;
  /** 'write': an in-flight block; 'release': a block that lost a reference and may be unreferenced. */
  reason: 'write' | 'release';
  tier: string;
  size: number;
  createdAt: Date;
}

const STATUS_COLUMNS = 'status, is_alive, version, md5, size, tier, created_at';
const num = (v: unknown): number | null =>
  v === null || v === undefined ? null : typeof v === 'number' ? v : (v as types.Long).toNumber();

/** Width of a `blocks_in_flight` time bucket. Fixed: changing it would hide existing entries from the GC. */
export const GC_BUCKET_MS = 3_600_000;
export const hourBucketOf = (ms: number): number => Math.floor(ms / GC_BUCKET_MS);

/**
 * Cassandra access for the block status, references and GC candidate tables (migration 002).
 *
 * Concurrency: a block's status (static columns) and its references (clustering rows) share one
 * `block_refs` partition, so a Paxos compare-and-set covers both. Every write to that partition is a
 * lightweight transaction — never a plain write mixed in: Paxos writes take ballot timestamps, and a
 * plain write stamped by a client clock running ahead could silently win over a later transaction.
 * Reads that decide a transition are SERIAL, so they see every accepted Paxos write.
 */
export class BlockStateRepository {
  private readonly serial: number;

  constructor(private readonly cassandra: CassandraClient) {
    this.serial = consistencyOf(cassandra.options.serialConsistency);
  }

  /**
   * Reads a block's status and its first reference. `linearizable` reads at SERIAL (for decisions
   * followed by a compare-and-set); otherwise at the session consistency (for cheap pre-checks).
   */
  async read(blockId: string, linearizable = true): Promise<StatusRead> {
    const rs = await this.cassandra.execute(
      `SELECT ref, ${STATUS_COLUMNS} FROM block_refs WHERE block_id = ? LIMIT 1`,
      [blockId],
      linearizable ? { consistency: this.serial, isIdempotent: true } : { isIdempotent: true },
    );
    const row = rs.first();
    if (!row) return { kind: 'absent' };
    const state = toState(blockId, row);
    if (state) return { kind: 'alive', state };
    if (row['status'] === null && row['tier'] === null && row['size'] === null && row['ref'] === null) {
      return { kind: 'absent' };
    }
    return {
      kind: 'broken',
      status: row['status'] as string | null,
      tier: row['tier'] as string | null,
      size: num(row['size']),
      hasRef: row['ref'] !== null,
    };
  }

  /**
   * Records a new block as in flight: status 'writing', `is_alive = true`, all columns with the
   * in-flight TTL, so a block whose writer died disappears from this table by itself (its bytes are
   * found through `blocks_in_flight`). IF NOT EXISTS both fences a (practically impossible) id
   * collision and keeps this first write a Paxos write like every later one. False if not applied.
   */
  async insertWriting(
    state: Omit<BlockState, 'status' | 'version' | 'firstRef'>,
    ttlSeconds: number,
  ): Promise<BlockState | undefined> {
    const rs = await this.cassandra.execute(
      `INSERT INTO block_refs (block_id, ${STATUS_COLUMNS}) VALUES (?, 'writing', true, 1, ?, ?, ?, ?) IF NOT EXISTS USING TTL ?`,
      [state.blockId, state.md5, state.size, state.tier, state.createdAt, ttlSeconds],
    );
    return rs.wasApplied() ? { ...state, status: 'writing', version: 1 } : undefined;
  }

  /**
   * Adds `ref` and (re)writes the status as 'committed' WITHOUT a TTL, if the block is still at
   * `state.version`. The status is rewritten whole — every column, `is_alive` included, in one
   * INSERT with `USING TTL 0` — never a partial UPDATE of the TTL'd in-flight row, which would leave
   * the untouched cells to expire under it (seed 004). `IF NOT EXISTS` on the reference row tells a
   * reference that was already there (idempotent re-add) from a version conflict.
   */
  async commitRef(
    state: BlockState,
    ref: string,
    addedAt: Date,
  ): Promise<RefOutcome> {
    return refOutcome(await this.cassandra.batch([committedRefInsert(state, ref, addedAt), versionBump(state)]), state, ref);
  }

  /**
   * Moves the block's references `from` to `to` in ONE compare-and-set: adds `to` and rewrites the
   * status as `commitRef` does, and drops every `from` row, if the block is still at
   * `state.version`. Afterwards the block holds `to` and none of `from`; at no point does it hold
   * neither, so nothing can delete it in between (multipart completion: part references become the
   * version's). Not applied when `to` is already there (`refExisted`: a retry, or a reference added
   * the other way) or the version moved on (`current`, when the partition still has a status).
   */
  async moveRefs(
    state: BlockState,
    from: string[],
    to: string,
    addedAt: Date,
  ): Promise<RefOutcome> {
    const drops = from
      .filter((ref) => ref !== to)
      .map((ref) => ({ query: `DELETE FROM block_refs WHERE block_id = ? AND ref = ?`, params: [state.blockId, ref] }));
    return refOutcome(await this.cassandra.batch([committedRefInsert(state, to, addedAt), ...drops, versionBump(state)]), state, to);
  }

  /**
   * The status and the first `limit` references of a block, read at the session consistency (not
   * SERIAL): a hint for `releaseLastRef`, whose compare-and-set on `version` is what decides. A
   * quorum read sees every committed Paxos write; one still in progress is finished by the next
   * Paxos round on the partition, and every write that adds a reference bumps `version`.
   */
  async readRefs(blockId: string, limit: number): Promise<{ state?: BlockState; refs: string[] }> {
    const rs = await this.cassandra.execute(
      `SELECT ref, ${STATUS_COLUMNS} FROM block_refs WHERE block_id = ? LIMIT ?`,
      [blockId, limit],
      { isIdempotent: true },
    );
    const first = rs.first();
    return {
      state: first ? toState(blockId, first) : undefined,
      refs: rs.rows.map((r) => r['ref'] as string | null).filter((r): r is string => r !== null),
    };
  }

  /**
   * Drops `ref` AND moves the block to 'deleting' (whole status rewritten with `ttlSeconds`, as
   * `markDeleting` does) in ONE compare-and-set, applied only if the block is still at
   * `state.version` — i.e. no reference was added since `state` was read with `ref` as its only
   * reference. Returns the 'deleting' state, or undefined when the compare-and-set lost.
   */
  async releaseLastRef(state: BlockState, ref: string, ttlSeconds: number): Promise<BlockState | undefined> {
    const next = { ...state, status: 'deleting' as const, version: state.version + 1, firstRef: undefined };
    const rs = await this.cassandra.batch([
      { query: `DELETE FROM block_refs WHERE block_id = ? AND ref = ?`, params: [state.blockId, ref] },
      {
        query: `UPDATE block_refs USING TTL ? SET status = 'deleting', is_alive = true, version = ?, md5 = ?, size = ?, tier = ?, created_at = ? WHERE block_id = ? IF version = ?`,
        params: [ttlSeconds, next.version, state.md5, state.size, state.tier, state.createdAt, state.blockId, state.version],
      },
    ]);
    return rs.wasApplied() ? next : undefined;
  }

  /** Removes one reference (a Paxos delete: see the class comment). True if it was there. */
  async deleteRef(blockId: string, ref: string): Promise<boolean> {
    const rs = await this.cassandra.execute(
      `DELETE FROM block_refs WHERE block_id = ? AND ref = ? IF EXISTS`,
      [blockId, ref],
    );
    return rs.wasApplied();
  }

  /**
   * Moves a trusted block to 'deleting' if nothing changed since `state` was read (same version:
   * no reference was added meanwhile). The whole status is rewritten with `ttlSeconds`, so that a
   * deleter that dies leaves nothing permanent behind (its `blocks_in_flight` entry brings the GC).
   * Returns the new state, or undefined when the compare-and-set lost.
   */
  async markDeleting(state: BlockState, ttlSeconds: number): Promise<BlockState | undefined> {
    const next = { ...state, status: 'deleting' as const, version: state.version + 1, firstRef: undefined };
    const rs = await this.cassandra.execute(
      `UPDATE block_refs USING TTL ? SET status = 'deleting', is_alive = true, version = ?, md5 = ?, size = ?, tier = ?, created_at = ? WHERE block_id = ? IF version = ?`,
      [
        ttlSeconds,
        next.version,
        state.md5,
        state.size,
        state.tier,
        state.createdAt,
        state.blockId,
        state.version,
      ],
    );
    return rs.wasApplied() ? next : undefined;
  }

  /**
   * Claims a block whose status is absent or not alive (expired in-flight row, broken leftover) for
   * deletion: writes a whole 'deleting' status IF `is_alive` is null. The claim fences a writer that
   * stalled before its own IF NOT EXISTS insert: that insert now fails loudly instead of reviving a
   * block whose bytes are being removed.
   */
  async claimUntrusted(
    blockId: string,
    hint: { tier: string; size: number; createdAt: Date },
    ttlSeconds: number,
  ): Promise<BlockState | undefined> {
    const state: BlockState = { blockId, status: 'deleting', version: 0, md5: '', ...hint };
    const rs = await this.cassandra.execute(
      `UPDATE block_refs USING TTL ? SET status = 'deleting', is_alive = true, version = 0, md5 = '', size = ?, tier = ?, created_at = ? WHERE block_id = ? IF is_alive = null`,
      [ttlSeconds, hint.size, hint.tier, hint.createdAt, blockId],
    );
    return rs.wasApplied() ? state : undefined;
  }

  /**
   * Removes the status of a deleted block (its bytes are gone), if still at `version`. Only the
   * static columns can be deleted under a condition; the partition has no live reference rows then.
   */
  async forget(blockId: string, version: number): Promise<boolean> {
    const rs = await this.cassandra.execute(
      `DELETE ${STATUS_COLUMNS} FROM block_refs WHERE block_id = ? IF version = ?`,
      [blockId, version],
    );
    return rs.wasApplied();
  }

  /**
   * Records a GC candidate. Entries are never deleted (no tombstones in these partitions): they
   * expire by TTL, which must outlast in-flight TTL + GC grace + GC downtime, and the GC marks whole
   * buckets done instead (`block_gc_progress`). A plain write is fine here: nothing else writes it.
   */
  async recordCandidate(c: GcCandidate, ttlSeconds: number): Promise<void> {
    await this.cassandra.execute(
      `INSERT INTO blocks_in_flight (shard, hour_bucket, block_id, reason, tier, size, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) USING TTL ?`,
      [c.shard, c.hourBucket, c.blockId, c.reason, c.tier, c.size, c.createdAt, ttlSeconds],
      { isIdempotent: true },
    );
  }

  /** Every candidate of one (shard, hour) partition, paged. */
  async *candidates(shard: number, hourBucket: number, pageSize = 500): AsyncGenerator<GcCandidate> {
    for await (const row of this.cassandra.rows(
      `SELECT block_id, reason, tier, size, created_at FROM blocks_in_flight WHERE shard = ? AND hour_bucket = ?`,
      [shard, hourBucket],
      { fetchSize: pageSize, isIdempotent: true },
    )) {
      yield {
        shard,
        hourBucket,
        blockId: row['block_id'] as string,
        reason: row['reason'] === 'release' ? 'release' : 'write',
        tier: row['tier'] as string,
        size: num(row['size']) ?? 0,
        createdAt: row['created_at'] as Date,
      };
    }
  }

  /** Buckets from `fromBucket` on that a GC pass finished, as `${hourBucket}:${shard}`. */
  async doneBuckets(fromBucket: number): Promise<Set<string>> {
    const done = new Set<string>();
    for await (const row of this.cassandra.rows(
      `SELECT hour_bucket, shard FROM block_gc_progress WHERE scope = 'blocks_in_flight' AND hour_bucket >= ?`,
      [fromBucket],
      { isIdempotent: true },
    )) {
      done.add(`${row['hour_bucket']}:${row['shard']}`);
    }
    return done;
  }

  /** Marks a (shard, hour) bucket as fully processed; expires with the candidates it covers. */
  async markBucketDone(hourBucket: number, shard: number, at: Date, ttlSeconds: number): Promise<void> {
    await this.cassandra.execute(
      `INSERT INTO block_gc_progress (scope, hour_bucket, shard, done_at) VALUES ('blocks_in_flight', ?, ?, ?) USING TTL ?`,
      [hourBucket, shard, at, ttlSeconds],
      { isIdempotent: true },
    );
  }
}

type RefOutcome = { applied: true } | { applied: false; refExisted: boolean; current?: BlockState };

/**
 * The reference row `ref` with the block's whole status rewritten as 'committed' WITHOUT a TTL, in
 * one INSERT with `USING TTL 0` — never a partial UPDATE of the TTL'd in-flight row, which would
 * leave the untouched cells to expire under it (seed 004) — if the row is not there yet.
 */
function committedRefInsert(state: BlockState, ref: string, addedAt: Date) {
  return {
    query: `INSERT INTO block_refs (block_id, ref, added_at, status, is_alive, md5, size, tier, created_at) VALUES (?, ?, ?, 'committed', true, ?, ?, ?, ?) IF NOT EXISTS USING TTL 0`,
    params: [state.blockId, ref, addedAt, state.md5, state.size, state.tier, state.createdAt],
  };
}

/** The compare-and-set on the block's `version`, bumped: fails if anything changed since `state`. */
function versionBump(state: BlockState) {
  return {
    query: `UPDATE block_refs USING TTL 0 SET version = ? WHERE block_id = ? IF version = ?`,
    params: [state.version + 1, state.blockId, state.version],
  };
}

/** What a conditional batch adding `ref` found: applied, or whether `ref` was there and the current status. */
function refOutcome(rs: types.ResultSet, state: BlockState, ref: string): RefOutcome {
  if (rs.wasApplied()) return { applied: true };
  const refRow = rs.rows.find((r) => r['ref'] === ref);
  const current = rs.rows.length > 0 ? toState(state.blockId, rs.rows[0]) : undefined;
  return { applied: false, refExisted: refRow !== undefined, current };
}

function toState(blockId: string, row: types.Row): BlockState | undefined {
  if (row['is_alive'] !== true) return undefined;
  const status = row['status'] as string | null;
  if (status !== 'writing' && status !== 'committed' && status !== 'deleting') return undefined;
  return {
    blockId,
    status,
    version: (row['version'] as number | null) ?? -1,
    md5: (row['md5'] as string | null) ?? '',
    size: num(row['size']) ?? 0,
    tier: (row['tier'] as string | null) ?? '',
    createdAt: (row['created_at'] as Date | null) ?? new Date(0),
    firstRef: (row['ref'] as string | null) ?? undefined,
  };
}
