import type { CassandraClient } from '@ostore/shared/cassandra';
import { mapOf, optNum, optStr, str } from './statement';

export interface BucketRow {
  name: string;
  bucketId: string;
  ownerId: string;
  ownerName: string;
  createdAt: Date;
  location: string;
  versioning: string;
  acl: string;
  lifecycle?: string;
  /** undefined when no tag set was ever stored (or it was deleted). */
  tags?: Record<string, string>;
  /** The CORS configuration in its stored form (see encodeStoredCors), undefined when none. */
  cors?: string;
  quotaBytes?: number;
  quotaObjects?: number;
  state: string;
  /** The bucket policy document (JSON), when one is set. */
  policy?: string;
  /** The Public Access Block configuration (stored JSON, see @ostore/s3/policy), when one is set. */
  publicAccessBlock?: string;
  /** The Object Ownership setting, when one is set. */
  objectOwnership?: string;
  /** The default encryption (stored form of @ostore/s3/crypto, migration 016), when one is set. */
  encryption?: string;
}

export type BucketSettings = Partial<{
  versioning: string;
  acl: string;
  lifecycle: string | null;
  tags: Record<string, string> | null;
  cors: string | null;
  policy: string | null;
  publicAccessBlock: string | null;
  objectOwnership: string | null;
  encryption: string | null;
}>;

const COLUMNS =
  'name, bucket_id, owner_id, owner_name, created_at, location, versioning, acl, lifecycle, tags, cors, quota_bytes, quota_objects, state, policy, public_access_block, object_ownership, encryption';

function toRow(r: Record<string, unknown>): BucketRow {
  const tags = r['tags'];
  return {
    name: str(r['name']),
    bucketId: str(r['bucket_id']),
    ownerId: str(r['owner_id']),
    ownerName: str(r['owner_name']),
    createdAt: r['created_at'] as Date,
    location: str(r['location']),
    versioning: str(r['versioning']) || 'Unversioned',
    acl: str(r['acl']) || 'private',
    lifecycle: optStr(r['lifecycle']),
    tags: tags ? mapOf(tags) : undefined,
    cors: optStr(r['cors']),
    quotaBytes: optNum(r['quota_bytes']),
    quotaObjects: optNum(r['quota_objects']),
    state: str(r['state']) || 'active',
    policy: optStr(r['policy']),
    publicAccessBlock: optStr(r['public_access_block']),
    objectOwnership: optStr(r['object_ownership']),
    encryption: optStr(r['encryption']),
  };
}

/**
 * Bucket settings (seed 000, kind 5) and the per-owner listing.
 *
 * The bucket name is global, so creation is a lightweight transaction (`IF NOT EXISTS`) on the
 * `buckets` row; every later settings change is conditional on the bucket id (`IF bucket_id = ?`)
 * so that it can neither resurrect a deleted bucket as a partial row nor touch a re-created one.
 * `buckets_by_owner` is written after the bucket row and is only a hint: readers confirm each entry
 * against `buckets` (a crash between the two writes leaves an entry that is filtered out).
 */
export class BucketsRepository {
  constructor(private readonly client: CassandraClient) {}

  async get(name: string): Promise<BucketRow | undefined> {
    const rs = await this.client.execute(`SELECT ${COLUMNS} FROM buckets WHERE name = ?`, [name]);
    const r = rs.first();
    return r ? toRow(r) : undefined;
  }

  /**
   * Every bucket (a small table: one row per bucket), paged. At the session's consistency: the
   * scanner reads it once per pass to know each bucket's versioning and lifecycle configuration.
   */
  async all(): Promise<BucketRow[]> {
    const out: BucketRow[] = [];
    for await (const r of this.client.rows(`SELECT ${COLUMNS} FROM buckets`, [], { fetchSize: 1000 })) out.push(toRow(r));
    return out;
  }

  /** Inserts the bucket unless the name is taken; returns the existing row when it is. */
  async insertIfNotExists(row: BucketRow): Promise<{ applied: boolean; existing?: BucketRow }> {
    const rs = await this.client.execute(
      `INSERT INTO buckets (name, bucket_id, owner_id, owner_name, created_at, location, versioning, acl, state)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
      [row.name, row.bucketId, row.ownerId, row.ownerName, row.createdAt, row.location, row.versioning, row.acl, row.state],
    );
    if (rs.wasApplied()) return { applied: true };
    const existing = rs.first();
    return { applied: false, existing: existing ? toRow(existing) : undefined };
  }

  /** Changes settings of the bucket with this id; false when the bucket is gone or was re-created. */
  async update(name: string, bucketId: string, settings: BucketSettings): Promise<boolean> {
    const sets: string[] = [];
    const params: unknown[] = [];
    for (const [col, key] of [
      ['versioning', 'versioning'],
      ['acl', 'acl'],
      ['lifecycle', 'lifecycle'],
      ['tags', 'tags'],
      ['cors', 'cors'],
      ['policy', 'policy'],
      ['public_access_block', 'publicAccessBlock'],
      ['object_ownership', 'objectOwnership'],
      ['encryption', 'encryption'],
    ] as const) {
      if (settings[key] !== undefined) {
        sets.push(`${col} = ?`);
        params.push(settings[key]);
      }
    }
    if (sets.length === 0) return true;
    const rs = await this.client.execute(
      `UPDATE buckets SET ${sets.join(', ')} WHERE name = ? IF bucket_id = ?`,
      [...params, name, bucketId],
    );
    return rs.wasApplied();
  }

  /**
   * Writes both quota limits of the bucket (null or undefined: no such limit), if it still has this
   * id; false when the bucket is gone or was re-created.
   */
  async setQuota(name: string, bucketId: string, limits: { maxBytes?: number | null; maxObjects?: number | null }): Promise<boolean> {
    const rs = await this.client.execute(`UPDATE buckets SET quota_bytes = ?, quota_objects = ? WHERE name = ? IF bucket_id = ?`, [
      limits.maxBytes ?? null,
      limits.maxObjects ?? null,
      name,
      bucketId,
    ]);
    return rs.wasApplied();
  }

  /** Deletes the bucket row if it still has this id. */
  async deleteIf(name: string, bucketId: string): Promise<boolean> {
    const rs = await this.client.execute(`DELETE FROM buckets WHERE name = ? IF bucket_id = ?`, [name, bucketId]);
    return rs.wasApplied();
  }

  async addOwned(row: BucketRow): Promise<void> {
    await this.client.execute(
      `INSERT INTO buckets_by_owner (owner_id, name, bucket_id, created_at) VALUES (?, ?, ?, ?)`,
      [row.ownerId, row.name, row.bucketId, row.createdAt],
    );
  }

  async removeOwned(ownerId: string, name: string): Promise<void> {
    await this.client.execute(`DELETE FROM buckets_by_owner WHERE owner_id = ? AND name = ?`, [ownerId, name]);
  }

  /** Entries of the owner's listing (unconfirmed: check each against `get`). */
  async listOwned(ownerId: string): Promise<{ name: string; bucketId: string }[]> {
    const out: { name: string; bucketId: string }[] = [];
    for await (const r of this.client.rows(
      `SELECT name, bucket_id FROM buckets_by_owner WHERE owner_id = ?`,
      [ownerId],
    )) {
      out.push({ name: str(r['name']), bucketId: str(r['bucket_id']) });
    }
    return out;
  }

  /**
   * One page of the owner's listing in name order (unconfirmed, like `listOwned`): names after
   * `after` and starting with `prefix`, at most `limit`.
   */
  async listOwnedPage(ownerId: string, page: { after?: string; prefix?: string; limit: number }): Promise<{ name: string; bucketId: string }[]> {
    const params: unknown[] = [ownerId];
    let cql = `SELECT name, bucket_id FROM buckets_by_owner WHERE owner_id = ?`;
    const from = page.prefix !== undefined && (page.after === undefined || page.after < page.prefix) ? page.prefix : undefined;
    if (from !== undefined) {
      cql += ' AND name >= ?';
      params.push(from);
    } else if (page.after !== undefined) {
      cql += ' AND name > ?';
      params.push(page.after);
    }
    if (page.prefix !== undefined) {
      // bucket names are ASCII: every name starting with the prefix sorts below this bound
      cql += ' AND name < ?';
      params.push(`${page.prefix}\u{10ffff}`);
    }
    cql += ' LIMIT ?';
    params.push(page.limit);
    const rs = await this.client.execute(cql, params);
    return rs.rows
      .map((r) => ({ name: str(r['name']), bucketId: str(r['bucket_id']) }))
      .filter((e) => (page.prefix === undefined || e.name.startsWith(page.prefix)) && (page.after === undefined || e.name > page.after));
  }

  /** How many entries the owner's listing holds (a count over one partition of at most the bucket limit). */
  async countOwned(ownerId: string): Promise<number> {
    const rs = await this.client.execute(`SELECT COUNT(*) AS n FROM buckets_by_owner WHERE owner_id = ?`, [ownerId]);
    return Number(rs.rows[0]?.['n'] ?? 0);
  }
}
