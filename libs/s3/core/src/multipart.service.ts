import { randomUUID } from 'crypto';
import type { Readable } from 'stream';
import { partDataKey } from '@ostore/s3/crypto';
import type { ContextLogger } from '@ostore/shared/observability';
import { BlockUnavailableError } from '@ostore/storage/blocks';
import { BlockEntry, forEachLimited, Metastore, PartRow, UploadRow } from '@ostore/metastore/data-access';
import type {
  BodyVerifier,
  BucketRef,
  ChecksumAlgorithm,
  CompleteUploadInput,
  MultipartService,
  ObjectMeta,
  Part,
  PartEncryptionOf,
  PutObjectResult,
  Upload,
  UploadPartCopyInput,
} from './api';
import { S3DomainError } from './api';
import type { BucketResolver } from './bucket-resolver';
import { quotedEtag } from './checksums';
import { noSuchKey, noSuchUpload, s3err } from './errors';
import { folderRowsOf, splitKey, validateKey } from './keys';
import { uploadsSource } from './listing/sources';
import { groupEndMarker } from './listing/group-end-marker';
import { takePage, TreeWalker } from './listing/tree-walker';
import { MultipartCompletion, partRef } from './multipart-completion';
import { uploadChecksumType } from './object-checksum';
import { listPageSize } from './object-listings';
import { copyPartOnce, PartFacts, partSealOf, SavedPart } from './part-copier';
import { validateObjectTags } from './objects.service';
import { decodeId, encodeId } from './version-ids';
import type { BucketKey } from './version-data';
import type { VersionStore } from './version-store';

export { partRef } from './multipart-completion';

/**
 * Multipart uploads.
 *
 * Parts: each upload of a part is a new row (newest pid wins) whose blocks carry the reference
 * `p:<upload>:<part>:<pid>`; after inserting, the uploader removes older rows of the same number
 * (releasing their blocks) — the same convergence as null versions. Completion: see
 * MultipartCompletion.
 */
export class CassandraMultipartService implements MultipartService {
  private readonly completion: MultipartCompletion;

  constructor(
    private readonly buckets: BucketResolver,
    private readonly store: VersionStore,
    /** The upload tables (`uploads`, parts, `upload_folders`). */
    private readonly ms: Metastore,
    private readonly log: ContextLogger,
  ) {
    this.completion = new MultipartCompletion(store, ms);
  }

  /** The addressed bucket, after the key passed S3's key rule (the one check of it). */
  private target(ref: BucketRef, key: string): Promise<BucketKey> {
    validateKey(key, this.store.limits.maxKeyBytes);
    return this.buckets.target(ref);
  }

  private uploadOf(bucket: string, key: string, row: UploadRow): Upload {
    const meta = JSON.parse(row.meta) as ObjectMeta;
    return {
      bucket,
      key,
      uploadId: encodeId(row.uploadId),
      initiated: row.initiated,
      owner: { id: row.ownerId, displayName: row.ownerName },
      storageClass: row.storageClass,
      meta: { ...meta, userMeta: meta.userMeta ?? {} },
      checksumAlgorithm: row.checksumAlgorithm as ChecksumAlgorithm | undefined,
      checksumType: uploadChecksumType(row),
    };
  }

  async create(input: Parameters<MultipartService['create']>[0]): Promise<Upload> {
    const bucket = await this.target(input.bucket, input.key);
    validateObjectTags(input.meta.tags);
    const { parent, name } = splitKey(input.key);
    const { vts, vid } = this.store.newVid('object');
    const row: UploadRow = {
      bucketId: bucket.bucketId,
      parent,
      name,
      uploadId: vid,
      initiated: new Date(Math.floor(vts / 1000)),
      ownerId: input.owner.id,
      ownerName: input.owner.displayName,
      storageClass: input.meta.storageClass ?? 'STANDARD',
      meta: JSON.stringify(input.meta),
      checksumAlgorithm: input.checksumAlgorithm,
      checksumType: input.checksumAlgorithm ? input.checksumType : undefined,
      completed: false,
    };
    await this.ms.uploadFolders.ensure(bucket.bucketId, folderRowsOf(input.key), row.initiated);
    await this.ms.uploads.insert(row);
    return this.uploadOf(bucket.name, input.key, row);
  }

  /** The upload row (NoSuchUpload for unknown, malformed, completed ones). */
  private async resolveUpload(bucket: BucketKey, key: string, uploadId: string, allowCompleted = false): Promise<UploadRow> {
    const vid = decodeId(uploadId);
    if (!vid) throw noSuchUpload(uploadId);
    const { parent, name } = splitKey(key);
    const row = await this.ms.uploads.get(bucket.bucketId, parent, name, vid);
    if (!row || (row.completed && !allowCompleted)) throw noSuchUpload(uploadId);
    return row;
  }

  private checkPartNumber(n: number): void {
    const { maxPartNumber } = this.store.limits;
    if (!Number.isInteger(n) || n < 1 || n > maxPartNumber)
      throw s3err('InvalidArgument', `Part number must be an integer between 1 and ${maxPartNumber}, inclusive`, {
        ArgumentName: 'partNumber',
        ArgumentValue: String(n),
      });
  }

  async uploadPart(input: {
    bucket: BucketRef;
    key: string;
    uploadId: string;
    partNumber: number;
    body: Readable;
    size?: number;
    checksumAlgorithms?: ChecksumAlgorithm[];
    verify?: BodyVerifier;
    encryption?: PartEncryptionOf;
  }): Promise<Part> {
    const bucket = await this.target(input.bucket, input.key);
    this.checkPartNumber(input.partNumber);
    const upload = await this.resolveUpload(bucket, input.key, input.uploadId);
    if (upload.completingVid) throw noSuchUpload(input.uploadId);
    // an encrypted upload's part is sealed with its part key; a missing or other SSE-C key fails here, before the body
    const seal = partSealOf(upload, input.encryption);
    const algorithms = [...(input.checksumAlgorithms ?? [])];
    if (upload.checksumAlgorithm) algorithms.push(upload.checksumAlgorithm as ChecksumAlgorithm);
    const ticket = await this.store.admitQuota(bucket, { bytes: input.size ?? 0, objects: 0 });
    try {
      const { stored, digests } = await this.store.storeBody(input.body, algorithms, input.verify, seal && partDataKey(seal.dataKey, input.partNumber));
      await this.store.fitQuota(ticket, stored.size, stored.blocks);
      const facts = { size: stored.size, etag: seal?.etag ? seal.etag(digests.md5) : quotedEtag(digests.md5), checksums: digests.checksums };
      const saved = await this.savePart(bucket, upload, input.partNumber, stored.blocks, facts);
      await this.store.recordUsage(bucket, 'store', stored.size, 0, ticket);
      await this.keepIfUploadStands(bucket, upload, saved.row, input.uploadId);
      return saved.part;
    } finally {
      ticket?.release();
    }
  }

  /** References the blocks for the part, records the part row, then retires older rows of its number. */
  private async savePart(
    bucket: BucketKey,
    upload: UploadRow,
    partNumber: number,
    blocks: BlockEntry[],
    facts: PartFacts,
    inFlight: BlockEntry[] = blocks,
  ): Promise<SavedPart> {
    const { vts, vid: pid } = this.store.newVid('object');
    const ref = partRef(upload.uploadId, partNumber, pid);
    try {
      await this.store.addRefs(blocks, ref);
    } catch (e) {
      await this.store.discardBlocks(inFlight);
      throw e;
    }
    const row: PartRow = {
      uploadId: upload.uploadId,
      partNumber,
      pid,
      size: facts.size,
      etag: facts.etag,
      lastModified: new Date(Math.floor(vts / 1000)),
      checksums: facts.checksums as Record<string, string>,
      blocks,
    };
    try {
      await this.ms.uploads.insertPart(row);
    } catch (e) {
      await this.store.releaseRefs(blocks, ref).catch(() => undefined);
      throw e;
    }
    await this.retireOlderParts(bucket, upload, partNumber).catch((err: unknown) =>
      this.log.warn('could not retire replaced part rows; completion or abort releases them', {
        uploadId: upload.uploadId,
        partNumber,
        err: (err as Error).message,
      }),
    );
    return { part: { partNumber, etag: row.etag, size: row.size, lastModified: row.lastModified, checksums: facts.checksums }, row };
  }

  /**
   * A part's body can take long, and an abort or a completion may pass its upload meanwhile without
   * seeing the part row written after it: the row would be left holding its blocks and its bytes.
   * So once the row and its usage are recorded, the upload is read again: unless it is still open
   * (an abort or completion from now on sees the row) or its completion planned this very row, the
   * part drops its own row and answers NoSuchUpload, as S3 does for a part of an upload that is gone.
   * A racing abort or completion that saw the row drops it too: its removal event id is the same,
   * so the stats app counts the removal once (see the README's quota section for the ledger).
   */
  private async keepIfUploadStands(bucket: BucketKey, upload: UploadRow, row: PartRow, uploadId: string): Promise<void> {
    const now = await this.ms.uploads.get(upload.bucketId, upload.parent, upload.name, upload.uploadId);
    if (now && (!now.completingVid || this.completion.plans(now, row.pid))) return;
    await this.completion.dropPartRow(bucket, row, true);
    throw noSuchUpload(uploadId);
  }

  /**
   * Drops the rows of `partNumber` older than its newest one. A completion may list the parts at any
   * time, so the drop is fenced: a new parts epoch is set first (an LWT, refused once a completion is
   * claimed: its plan may name one of these rows, and the completion or abort releases them), and a
   * completion claims only under the epoch it read before listing (see MultipartCompletion.complete).
   */
  private async retireOlderParts(bucket: BucketKey, upload: UploadRow, partNumber: number): Promise<void> {
    const rows = await this.ms.uploads.partRows(upload.uploadId, partNumber);
    if (rows.length < 2) return;
    if (!(await this.ms.uploads.newPartsEpoch(upload, randomUUID()))) return;
    for (const old of rows.slice(1)) await this.completion.dropPartRow(bucket, old, true);
  }

  /** UploadPartCopy: the part is the source range (see copyPartOnce), retried when a shared source block went away. */
  async uploadPartCopy(input: UploadPartCopyInput): Promise<Part> {
    const bucket = await this.target(input.bucket, input.key);
    this.checkPartNumber(input.partNumber);
    const upload = await this.resolveUpload(bucket, input.key, input.uploadId);
    if (upload.completingVid) throw noSuchUpload(input.uploadId);
    const srcBucket = input.source.bucket === bucket.name ? bucket : await this.buckets.resolve(input.source.bucket);
    for (let attempt = 0; ; attempt++) {
      try {
        const saved = await copyPartOnce(this.store, (...args) => this.savePart(...args), bucket, srcBucket, upload, input);
        await this.keepIfUploadStands(bucket, upload, saved.row, input.uploadId);
        return saved.part;
      } catch (e) {
        if (e instanceof BlockUnavailableError && attempt < 2) continue;
        if (e instanceof BlockUnavailableError) throw noSuchKey(input.source.key);
        throw e;
      }
    }
  }

  async complete(input: CompleteUploadInput): Promise<PutObjectResult & { location?: string; sse?: string }> {
    const bucket = await this.target(input.bucket, input.key);
    if (input.ifNoneMatch !== undefined && input.ifNoneMatch.trim() !== '*')
      throw s3err('NotImplemented', 'If-None-Match on CompleteMultipartUpload only supports *');
    const upload = await this.resolveUpload(bucket, input.key, input.uploadId, true);
    // the object it creates counts against an object quota (its parts' bytes are counted already)
    const ticket = upload.completingVid ? undefined : await this.store.admitQuota(bucket, { bytes: 0, objects: 1 });
    try {
      return await this.completion.complete(bucket, upload, input);
    } finally {
      ticket?.release();
    }
  }

  async abort(ref: BucketRef, key: string, uploadId: string): Promise<void> {
    await this.abortIn(await this.target(ref, key), key, uploadId);
  }

  /**
   * Aborts every multipart upload in progress in a bucket (DeleteBucket: S3 deletes a bucket whose
   * only contents are uploads in progress, and those uploads with it). An upload whose completion
   * is under way is left to it (the completion makes an object, so the bucket is not empty after
   * all): that is an OperationAborted error for the caller. Returns how many uploads were aborted.
   */
  async abortAll(bucket: BucketKey): Promise<number> {
    const walker = new TreeWalker<UploadRow>(uploadsSource(this.ms, bucket.bucketId), {
      pageSize: 100,
      keyFilter: () => (row) => !row.completed,
    });
    const uploads: { key: string; uploadId: string }[] = [];
    for (let e = await walker.next(); e; e = await walker.next())
      if (e.kind === 'row') uploads.push({ key: e.key, uploadId: encodeId(e.row.uploadId) });
    let aborted = 0;
    await forEachLimited(uploads, 8, async (u) => {
      try {
        await this.abortIn(bucket, u.key, u.uploadId);
        aborted++;
      } catch (e) {
        if (!(e instanceof S3DomainError && e.code === 'NoSuchUpload')) throw e;
      }
    });
    return aborted;
  }

  private async abortIn(bucket: BucketKey, key: string, uploadId: string): Promise<void> {
    let upload = await this.resolveUpload(bucket, key, uploadId);
    if (!upload.completingVid) {
      if (await this.ms.uploads.delete(upload, true)) {
        await this.dropAllParts(bucket, upload);
        return;
      }
      upload = await this.resolveUpload(bucket, key, uploadId);
    }
    await this.completion.abandon(bucket, key, upload, uploadId);
    await this.dropAllParts(bucket, upload);
  }

  private async dropAllParts(bucket: BucketKey, upload: Pick<UploadRow, 'uploadId'>, always = true): Promise<number> {
    const rows: PartRow[] = [];
    for await (const row of this.ms.uploads.allPartRows(upload.uploadId)) rows.push(row);
    await forEachLimited(rows, 16, (row) => this.completion.dropPartRow(bucket, row, true));
    if (always || rows.length > 0) await this.ms.uploads.deleteAllParts(upload.uploadId);
    return rows.length;
  }

  /**
   * Finishes an abort that died after removing the upload row: the part rows still there are
   * released (blocks, usage) and removed. Only for an upload whose row is gone (the caller read
   * it absent): a live upload's parts belong to it. Returns how many part rows were dropped.
   */
  async dropLeftoverParts(bucket: BucketKey, uploadVid: string): Promise<number> {
    // no partition tombstone when there is nothing to drop (the usual stale redelivery)
    return this.dropAllParts(bucket, { uploadId: uploadVid }, false);
  }

  async listParts(input: { bucket: BucketRef; key: string; uploadId: string; partNumberMarker?: number; maxParts: number }) {
    const bucket = await this.target(input.bucket, input.key);
    const upload = await this.resolveUpload(bucket, input.key, input.uploadId);
    const parts: Part[] = [];
    let isTruncated = false;
    let last = -1;
    for await (const row of this.ms.uploads.allPartRows(upload.uploadId, input.partNumberMarker ?? 0)) {
      if (row.partNumber === last) continue; // an older upload of the same part
      last = row.partNumber;
      if (parts.length >= input.maxParts) {
        isTruncated = true;
        break;
      }
      parts.push({
        partNumber: row.partNumber,
        etag: row.etag,
        size: row.size,
        lastModified: row.lastModified,
        checksums: row.checksums as Part['checksums'],
      });
    }
    return {
      upload: this.uploadOf(bucket.name, input.key, upload),
      parts,
      isTruncated,
      nextPartNumberMarker: isTruncated ? parts[parts.length - 1]?.partNumber : undefined,
    };
  }

  async listUploads(input: {
    bucket: BucketRef;
    prefix?: string;
    delimiter?: string;
    keyMarker?: string;
    uploadIdMarker?: string;
    maxUploads: number;
  }) {
    const bucket = await this.buckets.target(input.bucket);
    let resumeAfter: UploadRow | undefined;
    const markerVid = input.keyMarker && input.uploadIdMarker ? decodeId(input.uploadIdMarker) : undefined;
    if (input.keyMarker && markerVid) {
      const { parent, name } = splitKey(input.keyMarker);
      resumeAfter = { bucketId: bucket.bucketId, parent, name, uploadId: markerVid } as UploadRow;
    }
    const walker = new TreeWalker<UploadRow>(uploadsSource(this.ms, bucket.bucketId), {
      prefix: input.prefix,
      delimiter: input.delimiter,
      after: input.keyMarker || undefined,
      resumeAfter,
      levelBudget: this.store.limits.listingLevelBudget,
      resumableCut: true, // a page cut at the budget continues from a NextKeyMarker past the cut directory
      pageSize: listPageSize(input.maxUploads),
      keyFilter: () => (row) => !row.completed,
    });
    const { events, isTruncated } = await takePage(walker, input.maxUploads);
    const uploads: Upload[] = [];
    const commonPrefixes: string[] = [];
    for (const e of events) {
      if (e.kind === 'prefix') commonPrefixes.push(e.prefix);
      else if (!(await this.completion.finished(bucket, e.key, e.row))) uploads.push(this.uploadOf(bucket.name, e.key, e.row));
    }
    const last = events[events.length - 1];
    if (walker.cut !== undefined)
      return { uploads, commonPrefixes, isTruncated, nextKeyMarker: groupEndMarker(walker.cut, this.store.limits.maxKeyBytes) };
    return {
      uploads,
      commonPrefixes,
      isTruncated,
      nextKeyMarker: isTruncated && last ? (last.kind === 'row' ? last.key : last.prefix) : undefined,
      nextUploadIdMarker: isTruncated && last?.kind === 'row' ? encodeId(last.row.uploadId) : undefined,
    };
  }
}
