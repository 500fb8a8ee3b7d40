import { CassandraClient, consistencyOf } from '@ostore/shared/cassandra';
import { nameRangeCql, NameRange, num, Statement, str, ts } from './statement';
import { readNameRange, SplitPoints } from './tombstone-slices';

/** What the `objects` index says about the current version of a key. */
export interface IndexEntry {
  vid: string;
  vts: number;
  isNull: boolean;
  size: number;
  etag: string;
  lastModified: Date;
  storageClass: string;
  ownerId: string;
  ownerName: string;
  partCount?: number;
}

export interface IndexRow extends IndexEntry {
  name: string;
}

/**
 * The value is ONE text cell: the vid as 32 hex digits (so that, between two writes with the same
 * timestamp, Cassandra's tie-break "greater value wins" picks the greater vid, exactly as the
 * versions table orders equal vts by vid descending), then the entry as JSON.
 */
export function encodeIndexEntry(e: IndexEntry): string {
  const body = {
    t: e.vts,
    n: e.isNull ? 1 : 0,
    s: e.size,
    e: e.etag,
    m: e.lastModified.getTime(),
    c: e.storageClass,
    o: e.ownerId,
    on: e.ownerName,
    ...(e.partCount !== undefined ? { p: e.partCount } : {}),
  };
  return e.vid.replace(/-/g, '') + JSON.stringify(body);
}

export function decodeIndexEntry(text: string): IndexEntry {
  const hex = text.slice(0, 32);
  const b = JSON.parse(text.slice(32)) as Record<string, unknown>;
  return {
    vid: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    vts: num(b['t']),
    isNull: b['n'] === 1,
    size: num(b['s']),
    etag: str(b['e']),
    lastModified: new Date(num(b['m'])),
    storageClass: str(b['c']) || 'STANDARD',
    ownerId: str(b['o']),
    ownerName: str(b['on']),
    partCount: b['p'] === undefined ? undefined : num(b['p']),
  };
}

/**
 * The `objects` index: the current (newest, non-marker) version of each key, partitioned by
 * parent directory, read by ListObjects.
 *
 * Concurrency without Paxos: every write of a row carries `USING TIMESTAMP vts` of the version it
 * describes, and a delete marker (or ghost) removes the row `USING TIMESTAMP vts` of the marker.
 * Cassandra keeps the cell with the highest timestamp, a tombstone winning a tie, so concurrent
 * PUTs and DELETEs of one key converge on the newest by vts whatever order they land in, and an
 * earlier delete can never undo a later PUT. Markers win ties in `versions` too (see VersionIds).
 */
export class ObjectsRepository {
  /** Where reads of a directory had to be cut to get past runs of tombstones (see readNameRange). */
  private readonly splitPoints = new SplitPoints();

  constructor(private readonly client: CassandraClient) {}

  putStatement(bucketId: string, parent: string, name: string, entry: IndexEntry, atMicros: number): Statement {
    return {
      query: `INSERT INTO objects (bucket_id, parent, name, entry) VALUES (?, ?, ?, ?) USING TIMESTAMP ?`,
      params: [bucketId, parent, name, encodeIndexEntry(entry), ts(atMicros)],
    };
  }

  deleteStatement(bucketId: string, parent: string, name: string, atMicros: number): Statement {
    return {
      query: `DELETE FROM objects USING TIMESTAMP ? WHERE bucket_id = ? AND parent = ? AND name = ?`,
      params: [ts(atMicros), bucketId, parent, name],
    };
  }

  /** The index row and the write timestamp of its cell. */
  async get(
    bucketId: string,
    parent: string,
    name: string,
  ): Promise<{ entry: IndexEntry; writetime: number } | undefined> {
    const r = (
      await this.client.execute(
        `SELECT entry, WRITETIME(entry) AS wt FROM objects WHERE bucket_id = ? AND parent = ? AND name = ?`,
        [bucketId, parent, name],
      )
    ).first();
    if (!r || r['entry'] === null) return undefined;
    return { entry: decodeIndexEntry(str(r['entry'])), writetime: num(r['wt']) };
  }

  /** The raw index cell read at SERIAL consistency (sees every committed LWT), for conditional PUTs. */
  async getSerial(bucketId: string, parent: string, name: string): Promise<{ raw: string; entry: IndexEntry } | undefined> {
    const r = (
      await this.client.execute(
        `SELECT entry FROM objects WHERE bucket_id = ? AND parent = ? AND name = ?`,
        [bucketId, parent, name],
        { consistency: consistencyOf(this.client.options.serialConsistency) },
      )
    ).first();
    if (!r || r['entry'] === null) return undefined;
    return { raw: str(r['entry']), entry: decodeIndexEntry(str(r['entry'])) };
  }

  /**
   * The raw index cell at the default (QUORUM) consistency: what a compare-and-set on `entry`
   * (claim) compares with. `entry` is only ever written by plain writes, never by a Paxos round,
   * so a SERIAL read would see nothing more; the compare-and-set itself is linearizable.
   */
  async getRaw(bucketId: string, parent: string, name: string): Promise<string | undefined> {
    const r = (
      await this.client.execute(`SELECT entry FROM objects WHERE bucket_id = ? AND parent = ? AND name = ?`, [bucketId, parent, name])
    ).first();
    return !r || r['entry'] === null ? undefined : str(r['entry']);
  }

  /**
   * Conditional PUT, step 1: a Paxos round in the key's partition claims the row while its index
   * cell is still `expectedRaw` (null: no current object) and no other conditional writer holds
   * it. The claim (`cond`) has a TTL so a crashed writer cannot block the key for long. Plain
   * PUTs do not look at the claim: like in S3, only conditional writers exclude each other.
   */
  async claim(
    bucketId: string,
    parent: string,
    name: string,
    expectedRaw: string | null,
    token: string,
    ttlSeconds: number,
  ): Promise<'claimed' | 'changed' | 'busy'> {
    const rs = await this.client.execute(
      `UPDATE objects USING TTL ? SET cond = ? WHERE bucket_id = ? AND parent = ? AND name = ? IF entry = ? AND cond = null`,
      [ttlSeconds, token, bucketId, parent, name, expectedRaw],
    );
    if (rs.wasApplied()) return 'claimed';
    const r = rs.first();
    return r && r['cond'] !== null && r['cond'] !== undefined ? 'busy' : 'changed';
  }

  /** Conditional PUT, last step: drops our claim (only ours). */
  async releaseClaim(bucketId: string, parent: string, name: string, token: string): Promise<void> {
    await this.client.execute(
      `UPDATE objects SET cond = null WHERE bucket_id = ? AND parent = ? AND name = ? IF cond = ?`,
      [bucketId, parent, name, token],
    );
  }

  /**
   * Up to `limit` index rows with an entry, in name order. Rows holding only a conditional-PUT
   * claim are skipped; a short answer always means the range is exhausted. A read that a replica
   * gives up on tombstones (a run of 100,000+ deleted keys) is split into slices (readNameRange),
   * and the cuts are remembered for the next reads of the directory.
   */
  async page(bucketId: string, parent: string, range: NameRange, limit: number): Promise<IndexRow[]> {
    const rows = await readNameRange(
      range,
      limit,
      async (slice, want) => {
        const params: unknown[] = [bucketId, parent];
        const cql = `SELECT name, entry FROM objects WHERE bucket_id = ? AND parent = ?${nameRangeCql(slice, params)} LIMIT ?`;
        params.push(want);
        return (await this.client.execute(cql, params)).rows;
      },
      (r) => str(r['name']),
      (r) => r['entry'] !== null,
      { points: this.splitPoints, partition: `${bucketId}/${parent}` },
    );
    return rows.map((r) => ({ name: str(r['name']), ...decodeIndexEntry(str(r['entry'])) }));
  }

  async execute(statement: Statement): Promise<void> {
    await this.client.execute(statement.query, statement.params);
  }
}
