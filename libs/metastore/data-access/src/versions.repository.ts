import { types } from 'cassandra-driver';
import type { CassandraClient } from '@ostore/shared/cassandra';
import { encodeMetaSnapshot } from './meta-snapshot';
import { forEachLimited, mapOf, nameRangeCql, NameRange, num, optNum, optStr, Statement, str, ts } from './statement';
import { readNameRange, SplitPoints } from './tombstone-slices';
import type { BlockEntry, NullRowRef, RowExtras, RowReadOptions, VersionLocator, VersionMetaRow, VersionRow } from './version.entity';
import { columnsOf, META_COLUMNS, VERSION_COLUMNS, versionMetaRowOf, versionRowOf } from './version-row.mapper';

const BLOCK_BATCH = 100;
const NULL_ROW_COLUMNS = 'name, vts, vid, size, is_delete_marker, is_ghost, body_in_row';

/** A `null_versions` row as a NullRowRef (with its summary when the row has one: migration 013). */
function nullRowRefOf(bucketId: string, parent: string, r: types.Row): NullRowRef {
  return {
    bucketId,
    parent,
    name: str(r['name']),
    vts: num(r['vts']),
    vid: str(r['vid']),
    ...(r['size'] === null || r['size'] === undefined
      ? {}
      : { summary: { size: num(r['size']), isDeleteMarker: !!r['is_delete_marker'], isGhost: !!r['is_ghost'], bodyInRow: !!r['body_in_row'] } }),
  };
}

/**
 * Versions, their null-version index, their manifests (blocks) and their metadata.
 *
 * Write discipline:
 * - A version row is written once, `USING TIMESTAMP vts`, and never updated. Its manifest
 *   (`version_blocks`, `version_meta`, keyed by vid) is written before it, so whoever can see the
 *   row can read the manifest; an orphan manifest (crash before the row) is invisible garbage that
 *   names its location in `version_meta`. A row that holds its body and a metadata snapshot may
 *   have no manifest at all (the S3 core's rowOnlyMeta): its snapshot is then the only copy until
 *   a metadata change writes `version_meta` (insertMetaIfAbsent) before dropping it.
 * - Deletions of a version row carry an explicit timestamp greater than its vts (the caller passes
 *   `max(now, vts + 1)`), so that a gateway whose clock is behind the writer's can still delete it.
 * - A null version row is mirrored in `null_versions` (same partition, same mutation) so that the
 *   null rows of a key are found without reading its whole versioned history.
 */
export class VersionsRepository {
  /** Where reads of a directory had to be cut to get past runs of tombstones (see readNameRange). */
  private readonly splitPoints = new SplitPoints();

  constructor(private readonly client: CassandraClient) {}

  /** The newest rows of a key (delete markers and ghosts included), newest first. */
  async newest(
    bucketId: string,
    parent: string,
    name: string,
    limit = 1,
    options: RowReadOptions = {},
  ): Promise<VersionRow[]> {
    const rs = await this.client.execute(
      `SELECT ${columnsOf(options)} FROM versions WHERE bucket_id = ? AND parent = ? AND name = ? LIMIT ?`,
      [bucketId, parent, name, limit],
    );
    return rs.rows.map(versionRowOf);
  }

  async get(loc: VersionLocator, options: RowReadOptions = {}): Promise<VersionRow | undefined> {
    const rs = await this.client.execute(
      `SELECT ${columnsOf(options)} FROM versions WHERE bucket_id = ? AND parent = ? AND name = ? AND vts = ? AND vid = ?`,
      [loc.bucketId, loc.parent, loc.name, ts(loc.vts), loc.vid],
    );
    const r = rs.first();
    return r ? versionRowOf(r) : undefined;
  }

  /** Every null row of a key, newest first (normally one; more only while writers race), with its summary. */
  async nullRows(bucketId: string, parent: string, name: string): Promise<NullRowRef[]> {
    const rs = await this.client.execute(
      `SELECT ${NULL_ROW_COLUMNS} FROM null_versions WHERE bucket_id = ? AND parent = ? AND name = ?`,
      [bucketId, parent, name],
    );
    return rs.rows.map((r) => nullRowRefOf(bucketId, parent, r));
  }

  /**
   * The null rows of several keys of ONE directory partition in one read (`name IN`), by name,
   * each newest first; a name without null rows is absent. DeleteObjects converges a whole
   * group of keys from it instead of reading each key's rows on its own.
   */
  async nullRowsOfNames(bucketId: string, parent: string, names: readonly string[]): Promise<Map<string, NullRowRef[]>> {
    const out = new Map<string, NullRowRef[]>();
    if (names.length === 0) return out;
    const rs = await this.client.execute(
      `SELECT ${NULL_ROW_COLUMNS} FROM null_versions WHERE bucket_id = ? AND parent = ? AND name IN ?`,
      [bucketId, parent, [...names]],
    );
    for (const r of rs.rows) {
      const ref = nullRowRefOf(bucketId, parent, r);
      const list = out.get(ref.name);
      if (list) list.push(ref);
      else out.set(ref.name, [ref]);
    }
    return out;
  }

  /**
   * The newest row (markers and ghosts included) of several keys of ONE directory partition in one
   * read (`name IN`), by name; a key without rows is absent. Every row of the named keys is read
   * (Cassandra has no per-key LIMIT), at most `limit`: meant for unversioned buckets, where a key
   * has one row, or two while writers race. When the read was cut (`cut`), a name absent from
   * `newest` may still have rows; a name present has its newest (its first row in clustering order).
   */
  async newestOfNames(bucketId: string, parent: string, names: readonly string[], options: RowReadOptions = {}, limit?: number): Promise<{ newest: Map<string, VersionRow>; cut: boolean }> {
    const newest = new Map<string, VersionRow>();
    if (names.length === 0) return { newest, cut: false };
    const rs = await this.client.execute(
      `SELECT ${columnsOf(options)} FROM versions WHERE bucket_id = ? AND parent = ? AND name IN ?${limit === undefined ? '' : ' LIMIT ?'}`,
      limit === undefined ? [bucketId, parent, [...names]] : [bucketId, parent, [...names], limit],
    );
    for (const r of rs.rows) if (!newest.has(str(r['name']))) newest.set(str(r['name']), versionRowOf(r));
    return { newest, cut: limit !== undefined && rs.rows.length >= limit };
  }

  /**
   * Up to `limit` rows of a directory partition in clustering order (name ascending, then newest
   * first), within `range`, continuing strictly after the row `after` when given.
   */
  async page(
    bucketId: string,
    parent: string,
    range: NameRange,
    limit: number,
    after?: { name: string; vts: number; vid: string },
  ): Promise<VersionRow[]> {
    const out: VersionRow[] = [];
    if (after) {
      // Multi-column slices compare values, not clustering order, on mixed ASC/DESC columns:
      // (vts, vid) are both DESC, so "older than the marker" is a plain (vts, vid) < (...).
      const rs = await this.client.execute(
        `SELECT ${VERSION_COLUMNS} FROM versions WHERE bucket_id = ? AND parent = ? AND name = ? AND (vts, vid) < (?, ?) LIMIT ?`,
        [bucketId, parent, after.name, ts(after.vts), after.vid, limit],
      );
      out.push(...rs.rows.map(versionRowOf));
      if (out.length >= limit) return out;
      range = { ...range, gt: after.name, gte: undefined };
    }
    // in slices when a run of tombstones makes one read fail (readNameRange; every row is
    // accepted, so a slice is only ever continued by the next one, never after a name)
    const rows = await readNameRange(
      range,
      limit - out.length,
      async (slice, want) => {
        const params: unknown[] = [bucketId, parent];
        const cql = `SELECT ${VERSION_COLUMNS} FROM versions WHERE bucket_id = ? AND parent = ?${nameRangeCql(slice, params)} LIMIT ?`;
        params.push(want);
        return (await this.client.execute(cql, params)).rows;
      },
      (r) => str(r['name']),
      () => true,
      { points: this.splitPoints, partition: `${bucketId}/${parent}` },
    );
    out.push(...rows.map(versionRowOf));
    return out;
  }

  /**
   * Up to `limit` rows of the key strictly older than (vts, vid) — the rows below a given version,
   * newest first. (vts, vid) are both clustering DESC, so "older" is a plain tuple `<`.
   */
  async olderThan(loc: VersionLocator, limit: number): Promise<VersionRow[]> {
    const rs = await this.client.execute(
      `SELECT ${VERSION_COLUMNS} FROM versions WHERE bucket_id = ? AND parent = ? AND name = ? AND (vts, vid) < (?, ?) LIMIT ?`,
      [loc.bucketId, loc.parent, loc.name, ts(loc.vts), loc.vid, limit],
    );
    return rs.rows.map(versionRowOf);
  }

  /**
   * Lifecycle Transition: the storage class of an existing version row, written at `atMicros`.
   * The caller picks a timestamp just above the row's vts (the row was written at vts) and below
   * any permanent delete of it (those are at max(now, vts + 1) and now is far later), so the update
   * can never resurrect a deleted row as a partial one.
   */
  setStorageClassStatement(loc: VersionLocator, storageClass: string, atMicros: number): Statement {
    return {
      query: `UPDATE versions USING TIMESTAMP ? SET storage_class = ? WHERE bucket_id = ? AND parent = ? AND name = ? AND vts = ? AND vid = ?`,
      params: [ts(atMicros), storageClass, loc.bucketId, loc.parent, loc.name, ts(loc.vts), loc.vid],
    };
  }

  /**
   * Replaces a version's whole block list (lifecycle Transition) in ONE single-partition batch: the
   * partition is deleted at T and the new rows written at T + 1, T being just above the newest
   * write time of the rows there now. A reader, or a merge of replicas, thus sees either the old
   * list or the new one, never a mix (the partition tombstone shadows every old row, the new rows
   * are above it), and any later DeleteManifest (at the wall clock, far above T) still removes
   * them. Single-partition batches are exempt from the batch size thresholds.
   */
  async replaceBlocks(vid: string, blocks: BlockEntry[]): Promise<void> {
    let newest = 0;
    for await (const r of this.client.rows(`SELECT WRITETIME(block_id) AS wt FROM version_blocks WHERE vid = ?`, [vid], {
      fetchSize: 5000,
    }))
      newest = Math.max(newest, num(r['wt']));
    const at = newest + 1;
    const statements = [
      { query: `DELETE FROM version_blocks USING TIMESTAMP ? WHERE vid = ?`, params: [ts(at), vid] },
      ...blocks.map((b, seq) => ({
        query: `INSERT INTO version_blocks (vid, seq, block_id, tier, size, part_number) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?`,
        params: [vid, seq, b.blockId, b.tier, ts(b.size), b.partNumber ?? null, ts(at + 1)],
      })),
    ];
    await this.client.batch(statements, { logged: false });
  }

  /**
   * The row (and its null_versions mirror) as statements of the partition's commit mutation, with
   * the snapshot of `extras.meta` (what writeManifest wrote; see meta-snapshot.ts) and a small
   * inline body when given.
   */
  insertStatements(row: VersionRow, ttlSeconds?: number, extras: RowExtras = {}): Statement[] {
    const using = ttlSeconds ? 'USING TTL ? AND TIMESTAMP ?' : 'USING TIMESTAMP ?';
    const usingParams = ttlSeconds ? [ttlSeconds, ts(row.vts)] : [ts(row.vts)];
    const snapshot = extras.meta && encodeMetaSnapshot(extras.meta);
    const out: Statement[] = [
      {
        query: `INSERT INTO versions (${VERSION_COLUMNS}, meta_snapshot, inline_body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ${using}`,
        params: [
          row.bucketId,
          row.parent,
          row.name,
          ts(row.vts),
          row.vid,
          row.isNull,
          row.isDeleteMarker,
          row.isGhost,
          ts(row.size),
          row.etag,
          row.lastModified,
          row.storageClass,
          row.ownerId,
          row.ownerName,
          row.partCount ?? null,
          snapshot ?? types.unset,
          extras.inlineBody ?? types.unset,
          ...usingParams,
        ],
      },
    ];
    if (row.isNull) {
      // with what removing it needs (migration 013), so the next null writer need not read the row
      out.push({
        query: `INSERT INTO null_versions (bucket_id, parent, name, vts, vid, size, is_delete_marker, is_ghost, body_in_row) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ${using}`,
        params: [row.bucketId, row.parent, row.name, ts(row.vts), row.vid, ts(row.size), row.isDeleteMarker, row.isGhost, !!extras.inlineBody, ...usingParams],
      });
    }
    return out;
  }

  /**
   * Removes a row's metadata snapshot, so that readers go to `version_meta`: done BEFORE any change
   * of the version's metadata (tags, ACL), so that no reader can see a stale snapshot once the
   * change is acknowledged, even if the changer dies half way. A cell tombstone above the row's
   * vts: it can never bring back a deleted row, and a row deleted meanwhile stays deleted.
   */
  async dropSnapshot(loc: VersionLocator, atMicros: number): Promise<void> {
    await this.client.execute(
      `DELETE meta_snapshot FROM versions USING TIMESTAMP ? WHERE bucket_id = ? AND parent = ? AND name = ? AND vts = ? AND vid = ?`,
      [ts(Math.max(atMicros, loc.vts + 1)), loc.bucketId, loc.parent, loc.name, ts(loc.vts), loc.vid],
    );
  }

  /** Deletes a version row (and its null mirror) at `atMicros`, which must exceed its vts. */
  deleteStatements(loc: VersionLocator, isNull: boolean, atMicros: number): Statement[] {
    const key = [loc.bucketId, loc.parent, loc.name, ts(loc.vts), loc.vid];
    const out: Statement[] = [
      {
        query: `DELETE FROM versions USING TIMESTAMP ? WHERE bucket_id = ? AND parent = ? AND name = ? AND vts = ? AND vid = ?`,
        params: [ts(atMicros), ...key],
      },
    ];
    if (isNull) {
      out.push({
        query: `DELETE FROM null_versions USING TIMESTAMP ? WHERE bucket_id = ? AND parent = ? AND name = ? AND vts = ? AND vid = ?`,
        params: [ts(atMicros), ...key],
      });
    }
    return out;
  }

  /** Writes a version's manifest: its blocks (in order) and its metadata. Idempotent. */
  async writeManifest(vid: string, blocks: BlockEntry[], meta: VersionMetaRow): Promise<void> {
    const chunks: Statement[][] = [];
    for (let i = 0; i < blocks.length; i += BLOCK_BATCH) {
      chunks.push(
        blocks.slice(i, i + BLOCK_BATCH).map((b, j) => ({
          query: `INSERT INTO version_blocks (vid, seq, block_id, tier, size, part_number, part_checksum) VALUES (?, ?, ?, ?, ?, ?, ?)`,
          params: [vid, i + j, b.blockId, b.tier, ts(b.size), b.partNumber ?? null, b.partChecksum ?? types.unset],
        })),
      );
    }
    // each chunk is one partition (vid): a single mutation; a few chunks in flight at a time
    const writes: Promise<unknown>[] = [forEachLimited(chunks, 4, (c) => this.client.batch(c, { logged: false }))];
    writes.push(this.client.execute(META_INSERT, metaParams(vid, meta)));
    await Promise.all(writes);
  }

  /**
   * Writes a version's `version_meta` row unless it has one (LWT): for a version whose row snapshot
   * was the only copy of its metadata (S3 core's rowOnlyMeta), before that snapshot is dropped.
   * True when this call wrote it.
   */
  async insertMetaIfAbsent(meta: VersionMetaRow): Promise<boolean> {
    const rs = await this.client.execute(`${META_INSERT} IF NOT EXISTS`, metaParams(meta.vid, meta));
    return rs.wasApplied();
  }

  async readBlocks(vid: string): Promise<BlockEntry[]> {
    const out: BlockEntry[] = [];
    for await (const r of this.client.rows(
      `SELECT block_id, tier, size, part_number, part_checksum FROM version_blocks WHERE vid = ?`,
      [vid],
      { fetchSize: 5000 },
    )) {
      out.push({
        blockId: str(r['block_id']),
        tier: str(r['tier']),
        size: num(r['size']),
        partNumber: optNum(r['part_number']),
        partChecksum: optStr(r['part_checksum']),
      });
    }
    return out;
  }

  /**
   * A version's metadata; with `inlineBody` also the body of an inline-stored object too large for
   * the version row (smaller ones are in the row: VersionRow.inlineBody). Without it the body
   * column is not read.
   */
  async readMeta(vid: string, options: { inlineBody?: boolean } = {}): Promise<VersionMetaRow | undefined> {
    const r = (
      await this.client.execute(
        `SELECT ${META_COLUMNS}${options.inlineBody ? ', inline_body' : ''} FROM version_meta WHERE vid = ?`,
        [vid],
      )
    ).first();
    return r ? versionMetaRowOf(r) : undefined;
  }

  /**
   * The object tags of versions, by vid (`{}` for a vid without a metadata row): one small
   * single-partition read per vid, at most `concurrency` in flight. `version_meta` is partitioned
   * by vid, so these reads go to other nodes than the version rows; with `consistency` ONE they
   * suit a dry run only (the scanner), whose decisions are taken again from a quorum read.
   */
  async tagsOf(
    vids: readonly string[],
    options: { concurrency: number; consistency?: number },
  ): Promise<Map<string, Record<string, string>>> {
    const out = new Map<string, Record<string, string>>();
    const query = { isIdempotent: true, ...(options.consistency === undefined ? {} : { consistency: options.consistency }) };
    await forEachLimited([...vids], options.concurrency, async (vid) => {
      const rs = await this.client.execute(`SELECT tags FROM version_meta WHERE vid = ?`, [vid], query);
      out.set(vid, mapOf(rs.first()?.['tags']));
    });
    return out;
  }

  /**
   * Replaces a version's tag set or ACL. Conditional (`IF EXISTS`) so that a racing permanent
   * delete of the version can never leave a resurrected partial metadata row behind.
   */
  async updateMeta(vid: string, change: { tags?: Record<string, string>; acl?: string; sse?: string }): Promise<boolean> {
    const sets: string[] = [];
    const params: unknown[] = [];
    if (change.sse !== undefined) {
      sets.push('sse = ?');
      params.push(change.sse);
    }
    if (change.tags !== undefined) {
      sets.push('tags = ?');
      params.push(change.tags);
    }
    if (change.acl !== undefined) {
      sets.push('acl = ?');
      params.push(change.acl);
    }
    if (sets.length === 0) return true;
    const rs = await this.client.execute(`UPDATE version_meta SET ${sets.join(', ')} WHERE vid = ? IF EXISTS`, [
      ...params,
      vid,
    ]);
    return rs.wasApplied();
  }

  /**
   * Which of `vids` have a `version_meta` row: one read of many partitions (callers keep `vids` to
   * one chunk of a request, a few hundred at most). Most small versions have none (the S3 core's
   * rowOnlyMeta), and an absent partition costs a read no more than its bloom filters.
   */
  async metaRowsOf(vids: readonly string[]): Promise<Set<string>> {
    if (vids.length === 0) return new Set();
    const rs = await this.client.execute(`SELECT vid FROM version_meta WHERE vid IN ?`, [[...vids]]);
    return new Set(rs.rows.map((r) => str(r['vid'])));
  }

  /**
   * Drops a manifest whose version row is gone (or never became visible). `blocks: false` leaves
   * `version_blocks` alone: for a version known to have none (its body was in its row), where a
   * delete would only write a partition tombstone.
   */
  async deleteManifest(vid: string, options: { blocks?: boolean } = {}): Promise<void> {
    await Promise.all([
      options.blocks === false ? undefined : this.client.execute(`DELETE FROM version_blocks WHERE vid = ?`, [vid]),
      this.client.execute(`DELETE FROM version_meta WHERE vid = ?`, [vid]),
    ]);
  }
}

/** The INSERT of a `version_meta` row (writeManifest, insertMetaIfAbsent); binds metaParams. */
const META_INSERT = `INSERT INTO version_meta (vid, bucket_id, parent, name, vts, content_type, content_encoding, content_language,
           content_disposition, cache_control, expires, user_meta, tags, acl, checksums, inline_body, sse)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** Absent optional values are left unset, not null: a null in an INSERT writes a cell tombstone. */
function metaParams(vid: string, meta: VersionMetaRow): unknown[] {
  const opt = (v: unknown) => (v === undefined || v === null ? types.unset : v);
  return [
    vid,
    meta.bucketId,
    meta.parent,
    meta.name,
    ts(meta.vts),
    opt(meta.contentType),
    opt(meta.contentEncoding),
    opt(meta.contentLanguage),
    opt(meta.contentDisposition),
    opt(meta.cacheControl),
    opt(meta.expires),
    meta.userMeta,
    meta.tags,
    opt(meta.acl),
    meta.checksums,
    opt(meta.inlineBody),
    opt(meta.sse),
  ];
}
