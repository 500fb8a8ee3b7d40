import { CassandraClient, consistencyOf } from '@ostore/shared/cassandra';
import type { BlockEntry } from './version.entity';
import { mapOf, nameRangeCql, NameRange, num, optStr, str, ts } from './statement';

export interface UploadRow {
  bucketId: string;
  parent: string;
  name: string;
  /** Time-based uuid. */
  uploadId: string;
  initiated: Date;
  ownerId: string;
  ownerName: string;
  storageClass: string;
  /** The object metadata to give the completed version (serialized by the caller). */
  meta: string;
  checksumAlgorithm?: string;
  /** COMPOSITE or FULL_OBJECT (x-amz-checksum-type, migration 023); undefined without an algorithm. */
  checksumType?: string;
  /** Set once by the first CompleteMultipartUpload (LWT): the vid the object gets. */
  completingVid?: string;
  /** The plan that completion committed to (serialized by the caller). */
  completingParts?: string;
  /** Completed: kept (whole row with a TTL) only to answer a retried completion. */
  completed: boolean;
  /**
   * Set anew (LWT) by each UploadPart that replaced a part and is about to drop the older rows of its
   * number (migration 024); undefined until then. A completion claims only under the epoch it read
   * before listing the parts.
   */
  partsEpoch?: string;
}

export interface PartRow {
  uploadId: string;
  partNumber: number;
  /** Time-based uuid of this upload of the part; the newest pid of a number is the part. */
  pid: string;
  size: number;
  etag: string;
  lastModified: Date;
  checksums: Record<string, string>;
  blocks: BlockEntry[];
}

const UPLOAD_COLUMNS =
  'bucket_id, parent, name, upload_id, initiated, owner_id, owner_name, storage_class, meta, checksum_algorithm, completing_vid, completing_parts, completed, checksum_type, parts_epoch';

function uploadOf(r: Record<string, unknown>): UploadRow {
  return {
    bucketId: str(r['bucket_id']),
    parent: str(r['parent']),
    name: str(r['name']),
    uploadId: str(r['upload_id']),
    initiated: r['initiated'] as Date,
    ownerId: str(r['owner_id']),
    ownerName: str(r['owner_name']),
    storageClass: str(r['storage_class']) || 'STANDARD',
    meta: str(r['meta']) || '{}',
    checksumAlgorithm: optStr(r['checksum_algorithm']),
    completingVid: optStr(r['completing_vid']),
    completingParts: optStr(r['completing_parts']),
    completed: r['completed'] === true,
    checksumType: optStr(r['checksum_type']),
    partsEpoch: optStr(r['parts_epoch']),
  };
}

function partOf(r: Record<string, unknown>): PartRow {
  const blocks = JSON.parse(str(r['blocks']) || '[]') as { b: string; t: string; s: number }[];
  return {
    uploadId: str(r['upload_id']),
    partNumber: num(r['part_number']),
    pid: str(r['pid']),
    size: num(r['size']),
    etag: str(r['etag']),
    lastModified: r['last_modified'] as Date,
    checksums: mapOf(r['checksums']),
    blocks: blocks.map((b) => ({ blockId: b.b, tier: b.t, size: b.s })),
  };
}

/**
 * Multipart uploads (in the directory partition of their key, listed like objects) and their parts
 * (one partition per upload). Completion claims the upload with a lightweight transaction
 * (`completing_vid`), so that two racing CompleteMultipartUpload calls build one object and an
 * abort cannot remove an upload whose object is being built.
 */
export class UploadsRepository {
  constructor(private readonly client: CassandraClient) {}

  async insert(row: UploadRow): Promise<void> {
    await this.client.execute(
      `INSERT INTO uploads (bucket_id, parent, name, upload_id, initiated, owner_id, owner_name, storage_class, meta, checksum_algorithm, checksum_type)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        row.bucketId,
        row.parent,
        row.name,
        row.uploadId,
        row.initiated,
        row.ownerId,
        row.ownerName,
        row.storageClass,
        row.meta,
        row.checksumAlgorithm ?? null,
        row.checksumType ?? null,
      ],
    );
  }

  /** Reads at SERIAL when `serial` (to see the outcome of a racing completion's LWT). */
  async get(
    bucketId: string,
    parent: string,
    name: string,
    uploadId: string,
    serial = false,
  ): Promise<UploadRow | undefined> {
    const rs = await this.client.execute(
      `SELECT ${UPLOAD_COLUMNS} FROM uploads WHERE bucket_id = ? AND parent = ? AND name = ? AND upload_id = ?`,
      [bucketId, parent, name, uploadId],
      serial ? { consistency: consistencyOf(this.client.options.serialConsistency) } : {},
    );
    const r = rs.first();
    return r ? uploadOf(r) : undefined;
  }

  /** Uploads of a directory partition in (name, upload id) order, strictly after `after` when given. */
  async page(
    bucketId: string,
    parent: string,
    range: NameRange,
    limit: number,
    after?: { name: string; uploadId: string },
  ): Promise<UploadRow[]> {
    const out: UploadRow[] = [];
    if (after) {
      const rs = await this.client.execute(
        `SELECT ${UPLOAD_COLUMNS} FROM uploads WHERE bucket_id = ? AND parent = ? AND name = ? AND upload_id > ? LIMIT ?`,
        [bucketId, parent, after.name, after.uploadId, limit],
      );
      out.push(...rs.rows.map(uploadOf));
      if (out.length >= limit) return out;
      range = { ...range, gt: after.name, gte: undefined };
    }
    const params: unknown[] = [bucketId, parent];
    const cql = `SELECT ${UPLOAD_COLUMNS} FROM uploads WHERE bucket_id = ? AND parent = ?${nameRangeCql(range, params)} LIMIT ?`;
    params.push(limit - out.length);
    out.push(...(await this.client.execute(cql, params)).rows.map(uploadOf));
    return out;
  }

  /**
   * Claims the upload for completion with `vid` unless already claimed, and only while its parts
   * epoch is still `row.partsEpoch` (the one read before the plan's parts were listed). Returns the
   * row after the attempt: claimed (ours or an earlier claimer's), unclaimed with a newer epoch (a
   * replaced part's older rows are being dropped: plan again), or undefined when the upload does not exist.
   */
  async claimCompletion(row: UploadRow, vid: string, parts: string): Promise<UploadRow | undefined> {
    const rs = await this.client.execute(
      `UPDATE uploads SET completing_vid = ?, completing_parts = ?
       WHERE bucket_id = ? AND parent = ? AND name = ? AND upload_id = ?
       IF owner_id = ? AND completing_vid = null AND parts_epoch = ?`,
      [vid, parts, row.bucketId, row.parent, row.name, row.uploadId, row.ownerId, row.partsEpoch ?? null],
    );
    if (rs.wasApplied()) return { ...row, completingVid: vid, completingParts: parts };
    return this.get(row.bucketId, row.parent, row.name, row.uploadId, true);
  }

  /**
   * Sets a new parts epoch, only while the upload exists and no completion is claimed; returns
   * whether it did. UploadPart calls it before dropping the rows its part replaced: a completion
   * that listed the parts before this can then no longer claim with a plan naming one of them.
   */
  async newPartsEpoch(row: UploadRow, epoch: string): Promise<boolean> {
    const rs = await this.client.execute(
      `UPDATE uploads SET parts_epoch = ?
       WHERE bucket_id = ? AND parent = ? AND name = ? AND upload_id = ?
       IF owner_id = ? AND completing_vid = null`,
      [epoch, row.bucketId, row.parent, row.name, row.uploadId, row.ownerId],
    );
    return rs.wasApplied();
  }

  /** Removes the upload row; with `onlyIfNotCompleting` it refuses an upload being completed. */
  async delete(row: UploadRow, onlyIfNotCompleting: boolean): Promise<boolean> {
    const cond = onlyIfNotCompleting ? 'IF owner_id = ? AND completing_vid = null' : 'IF EXISTS';
    const rs = await this.client.execute(
      `DELETE FROM uploads WHERE bucket_id = ? AND parent = ? AND name = ? AND upload_id = ? ${cond}`,
      [row.bucketId, row.parent, row.name, row.uploadId, ...(onlyIfNotCompleting ? [row.ownerId] : [])],
    );
    return rs.wasApplied();
  }

  /**
   * Replaces the row of a completed upload by a whole-row INSERT with a TTL (every cell gets the
   * same TTL: no half-expired row, seed 004), marked completed.
   */
  async markCompleted(row: UploadRow, ttlSeconds: number): Promise<void> {
    await this.client.execute(
      `INSERT INTO uploads (${UPLOAD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, true, ?, ?) USING TTL ?`,
      [
        row.bucketId,
        row.parent,
        row.name,
        row.uploadId,
        row.initiated,
        row.ownerId,
        row.ownerName,
        row.storageClass,
        row.meta,
        row.checksumAlgorithm ?? null,
        row.completingVid ?? null,
        row.completingParts ?? null,
        row.checksumType ?? null,
        row.partsEpoch ?? null,
        ttlSeconds,
      ],
    );
  }

  /** Removes the row of an upload whose completion was claimed with `vid` (abort of a dead completion). */
  async deleteClaimed(row: UploadRow, vid: string): Promise<boolean> {
    const rs = await this.client.execute(
      `DELETE FROM uploads WHERE bucket_id = ? AND parent = ? AND name = ? AND upload_id = ? IF completing_vid = ?`,
      [row.bucketId, row.parent, row.name, row.uploadId, vid],
    );
    return rs.wasApplied();
  }

  async insertPart(part: PartRow): Promise<void> {
    await this.client.execute(
      `INSERT INTO upload_parts (upload_id, part_number, pid, size, etag, last_modified, checksums, blocks)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        part.uploadId,
        part.partNumber,
        part.pid,
        ts(part.size),
        part.etag,
        part.lastModified,
        part.checksums,
        JSON.stringify(part.blocks.map((b) => ({ b: b.blockId, t: b.tier, s: b.size }))),
      ],
    );
  }

  /** Every row of one part number, newest pid first. */
  async partRows(uploadId: string, partNumber: number): Promise<PartRow[]> {
    const rs = await this.client.execute(`SELECT * FROM upload_parts WHERE upload_id = ? AND part_number = ?`, [
      uploadId,
      partNumber,
    ]);
    return rs.rows.map(partOf);
  }

  /** Every part row of an upload (all pids), by part number then newest pid first, paged. */
  async *allPartRows(uploadId: string, afterPartNumber = 0): AsyncGenerator<PartRow> {
    for await (const r of this.client.rows(
      `SELECT * FROM upload_parts WHERE upload_id = ? AND part_number > ?`,
      [uploadId, afterPartNumber],
      { fetchSize: 500 },
    )) {
      yield partOf(r);
    }
  }

  async deletePartRow(uploadId: string, partNumber: number, pid: string): Promise<void> {
    await this.client.execute(`DELETE FROM upload_parts WHERE upload_id = ? AND part_number = ? AND pid = ?`, [
      uploadId,
      partNumber,
      pid,
    ]);
  }

  async deleteAllParts(uploadId: string): Promise<void> {
    await this.client.execute(`DELETE FROM upload_parts WHERE upload_id = ?`, [uploadId]);
  }
}
