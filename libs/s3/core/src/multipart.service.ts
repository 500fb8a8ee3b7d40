import { Readable, Writable } from 'stream';
import { pipeline } from 'stream/promises';
import type { ContextLogger } from '@ostore/shared/observability';
import { BlockUnavailableError } from '@ostore/storage/blocks';
import { BlockEntry, BucketRow, forEachLimited, PartRow, UploadRow } from '@ostore/metastore/data-access';
import type {
  BodyVerifier,
  ByteRange,
  ChecksumAlgorithm,
  CopySource,
  MultipartService,
  ObjectMeta,
  Owner,
  Part,
  PutObjectResult,
  Upload,
} from './api';
import { S3DomainError } from './api';
import { storeBody } from './body';
import { CassandraBucketsService } from './buckets.service';
import { compositeChecksum, DigestTap, multipartEtag, normalizeEtag, quotedEtag } from './checksums';
import { noSuchKey, noSuchUpload, noSuchVersion, s3err } from './errors';
import { folderRowsOf, splitKey } from './keys';
import { uploadsSource } from './listing/sources';
import { takePage, TreeWalker } from './listing/tree-walker';
import { listPageSize, validateObjectTags } from './objects.service';
import { decodeId, encodeId, uuidBytes, vtsOfVid } from './version-ids';
import { blockRefs, versionRef, VersionStore } from './version-store';

export const partRef = (uploadId: string, partNumber: number, pid: string) => `p:${uploadId}:${partNumber}:${pid}`;

/** What CompleteMultipartUpload committed to, stored with its claim (retries follow it). */
interface CompletionPlan {
  parts: { n: number; pid: string }[];
  etag: string;
  size: number;
  isNull: boolean;
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
}

/** A completion whose version is not visible after this long is presumed dead; abort may undo it. */
const STALE_COMPLETION_MS = 15 * 60 * 1000;
/** How long a completed upload answers retried completions. */
const COMPLETED_TTL_SECONDS = 86400;

/**
 * Multipart uploads.
 *
 * Parts: each upload of a part is a new row (newest pid wins) whose blocks carry the reference
 * `p:<upload>:<part>:<pid>`; after inserting, the uploader removes older rows of the same number
 * (releasing their blocks) — the same convergence as null versions.
 *
 * Completion, crash-safe and idempotent:
 *   1. validate, then claim the upload with an LWT storing the vid and the plan (which part rows);
 *      a racing or retried completion adopts the existing claim;
 *   2. commit the version like a PUT (manifest, `v:<vid>` references, folders, one partition
 *      mutation) — every step idempotent, so a retry simply redoes them;
 *   3. release every part reference and part row, then rewrite the upload row as completed with
 *      a TTL, so that a retry within a day returns the same answer.
 * A crash before 2 leaves a claimed upload (listed; abort undoes it once stale); a crash during 3
 * leaves part references that the retry or abort releases. Blocks are never orphaned: parts keep
 * their references until the version has its own.
 */
export class CassandraMultipartService implements MultipartService {
  constructor(
    private readonly buckets: CassandraBucketsService,
    private readonly store: VersionStore,
    private readonly log: ContextLogger,
  ) {}

  private get ms() {
    return this.store.ms;
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
    };
  }

  async create(input: {
    bucket: string;
    key: string;
    owner: Owner;
    meta: ObjectMeta;
    checksumAlgorithm?: ChecksumAlgorithm;
  }): Promise<Upload> {
    const bucket = await this.buckets.resolve(input.bucket);
    if (!input.key) throw s3err('InvalidArgument', 'The key must not be empty');
    if (Buffer.byteLength(input.key) > this.store.settings.maxKeyBytes)
      throw s3err('KeyTooLongError', 'Your key is too long');
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
      completed: false,
    };
    await this.ms.uploadFolders.ensure(bucket.bucketId, folderRowsOf(input.key), row.initiated);
    await this.ms.uploads.insert(row);
    return this.uploadOf(input.bucket, input.key, row);
  }

  /** The upload row (NoSuchUpload for unknown, malformed, completed ones). */
  private async resolveUpload(bucket: BucketRow, key: string, uploadId: string, allowCompleted = false): Promise<UploadRow> {
    const vid = decodeId(uploadId);
    if (!vid) throw noSuchUpload(uploadId);
    const { parent, name } = splitKey(key);
    const row = await this.ms.uploads.get(bucket.bucketId, parent, name, vid);
    if (!row || (row.completed && !allowCompleted)) throw noSuchUpload(uploadId);
    return row;
  }

  private checkPartNumber(n: number): void {
    if (!Number.isInteger(n) || n < 1 || n > this.store.settings.maxPartNumber)
      throw s3err('InvalidArgument', `Part number must be an integer between 1 and ${this.store.settings.maxPartNumber}, inclusive`, {
        ArgumentName: 'partNumber',
        ArgumentValue: String(n),
      });
  }

  async uploadPart(input: {
    bucket: string;
    key: string;
    uploadId: string;
    partNumber: number;
    body: Readable;
    checksumAlgorithms?: ChecksumAlgorithm[];
    verify?: BodyVerifier;
  }): Promise<Part> {
    const bucket = await this.buckets.resolve(input.bucket);
    this.checkPartNumber(input.partNumber);
    const upload = await this.resolveUpload(bucket, input.key, input.uploadId);
    if (upload.completingVid) throw noSuchUpload(input.uploadId);
    const algorithms = [...(input.checksumAlgorithms ?? [])];
    if (upload.checksumAlgorithm) algorithms.push(upload.checksumAlgorithm as ChecksumAlgorithm);
    const { stored, digests } = await storeBody(this.store.blocks, input.body, algorithms, input.verify);
    const part = await this.savePart(bucket, upload, input.partNumber, stored.blocks, {
      size: stored.size,
      etag: quotedEtag(digests.md5),
      checksums: digests.checksums,
    });
    this.store.recordUsage(bucket, 'store', stored.size);
    return part;
  }

  /** References the blocks for the part, records the part row, then retires older rows of its number. */
  private async savePart(
    bucket: BucketRow,
    upload: UploadRow,
    partNumber: number,
    blocks: BlockEntry[],
    facts: { size: number; etag: string; checksums: Partial<Record<ChecksumAlgorithm, string>> },
    inFlight: BlockEntry[] = blocks,
  ): Promise<Part> {
    const { vts, vid: pid } = this.store.newVid('object');
    const ref = partRef(upload.uploadId, partNumber, pid);
    try {
      if (blocks.length > 0) await this.store.blocks.addRefs(blockRefs(blocks), ref);
    } catch (e) {
      await this.store.blocks.discard(blockRefs(inFlight)).catch(() => undefined);
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
      await this.store.blocks.releaseRefs(blockRefs(blocks), ref).catch(() => undefined);
      throw e;
    }
    await this.retireOlderParts(bucket, upload, partNumber).catch((err: unknown) =>
      this.log.warn('could not retire replaced part rows; completion or abort releases them', {
        uploadId: upload.uploadId,
        partNumber,
        err: (err as Error).message,
      }),
    );
    return { partNumber, etag: row.etag, size: row.size, lastModified: row.lastModified, checksums: facts.checksums };
  }

  private async retireOlderParts(bucket: BucketRow, upload: UploadRow, partNumber: number): Promise<void> {
    const rows = await this.ms.uploads.partRows(upload.uploadId, partNumber);
    if (rows.length < 2) return;
    // a completion claimed meanwhile may have planned one of these rows: leave them to it
    const now = await this.ms.uploads.get(upload.bucketId, upload.parent, upload.name, upload.uploadId);
    if (!now || now.completingVid) return;
    for (const old of rows.slice(1)) await this.dropPartRow(bucket, old, true);
  }

  private async dropPartRow(bucket: BucketRow, row: PartRow, countUsage: boolean): Promise<void> {
    if (row.blocks.length > 0)
      await this.store.blocks.releaseRefs(blockRefs(row.blocks), partRef(row.uploadId, row.partNumber, row.pid));
    await this.ms.uploads.deletePartRow(row.uploadId, row.partNumber, row.pid);
    if (countUsage) this.store.recordUsage(bucket, 'remove', -row.size);
  }

  /**
   * UploadPartCopy: the part is the source range. Source blocks lying wholly inside the range are
   * shared by reference; the partial blocks at its edges are copied. The part's ETag is the
   * source's when the whole of a single-part object is copied, else the md5 of the range (read).
   */
  async uploadPartCopy(input: {
    bucket: string;
    key: string;
    uploadId: string;
    partNumber: number;
    source: CopySource;
    range?: ByteRange;
  }): Promise<Part> {
    const bucket = await this.buckets.resolve(input.bucket);
    this.checkPartNumber(input.partNumber);
    const upload = await this.resolveUpload(bucket, input.key, input.uploadId);
    if (upload.completingVid) throw noSuchUpload(input.uploadId);
    const srcBucket = input.source.bucket === input.bucket ? bucket : await this.buckets.resolve(input.source.bucket);
    for (let attempt = 0; ; attempt++) {
      try {
        const part = await this.copyPartOnce(bucket, srcBucket, upload, input);
        this.store.recordUsage(bucket, 'copy', part.size);
        return part;
      } catch (e) {
        if (e instanceof BlockUnavailableError && attempt < 2) continue;
        if (e instanceof BlockUnavailableError) throw noSuchKey(input.source.key);
        throw e;
      }
    }
  }

  private async copyPartOnce(
    bucket: BucketRow,
    srcBucket: BucketRow,
    upload: UploadRow,
    input: { key: string; partNumber: number; source: CopySource; range?: ByteRange },
  ): Promise<Part> {
    const src = input.source.versionId
      ? await this.store.findVersion(srcBucket.bucketId, input.source.key, input.source.versionId, { body: true })
      : await this.store.newest(srcBucket.bucketId, input.source.key, { body: true });
    if (!src) throw input.source.versionId ? noSuchVersion(input.source.key, input.source.versionId) : noSuchKey(input.source.key);
    if (src.isDeleteMarker) {
      if (input.source.versionId)
        throw s3err('InvalidRequest', 'The source of a copy request may not specifically refer to a delete marker by version id.');
      throw noSuchKey(input.source.key);
    }
    const srcBlocks = await this.ms.versions.readBlocks(src.vid);
    // a small source stored inline has no blocks: its bytes are in its row or its metadata row
    const inline =
      srcBlocks.length === 0 && src.size > 0
        ? (src.inlineBody ?? (await this.ms.versions.readMeta(src.vid, { inlineBody: true }))?.inlineBody)
        : undefined;
    const readSource = (r: ByteRange): Readable =>
      inline ? Readable.from([inline.subarray(r.start, r.endInclusive + 1)], { objectMode: false }) : this.store.blocks.openRead(refs, r);
    const whole = input.range === undefined;
    const range = input.range ?? { start: 0, endInclusive: src.size - 1 };
    if (!whole && (range.start < 0 || range.endInclusive < range.start || range.endInclusive >= src.size))
      throw s3err('InvalidRange', 'The requested range is not satisfiable', {
        RangeRequested: `bytes=${range.start}-${range.endInclusive}`,
        ActualObjectSize: String(src.size),
      });
    const size = src.size === 0 && whole ? 0 : range.endInclusive - range.start + 1;
    const refs = blockRefs(srcBlocks);
    // plan: shared whole blocks, copied edges
    const pieces: ({ shared: BlockEntry } | { copy: ByteRange })[] = inline && size > 0 ? [{ copy: range }] : [];
    let offset = 0;
    for (const b of srcBlocks) {
      const bStart = offset;
      const bEnd = offset + b.size - 1;
      offset += b.size;
      if (size === 0 || bEnd < range.start || bStart > range.endInclusive || b.size === 0) continue;
      if (bStart >= range.start && bEnd <= range.endInclusive) pieces.push({ shared: { ...b, partNumber: undefined } });
      else {
        const c = { start: Math.max(bStart, range.start), endInclusive: Math.min(bEnd, range.endInclusive) };
        const prev = pieces[pieces.length - 1];
        if (prev && 'copy' in prev && prev.copy.endInclusive + 1 === c.start) prev.copy.endInclusive = c.endInclusive;
        else pieces.push({ copy: c });
      }
    }
    let etag: string;
    let checksums: Partial<Record<ChecksumAlgorithm, string>> = {};
    const algorithms = upload.checksumAlgorithm ? [upload.checksumAlgorithm as ChecksumAlgorithm] : [];
    if (whole && !src.etag.includes('-') && algorithms.length === 0) {
      etag = src.etag;
    } else {
      const tap = new DigestTap(algorithms);
      const body = size > 0 ? readSource(range) : Readable.from([]);
      await pipeline(body, tap, new Writable({ write: (_chunk, _enc, cb) => cb() }));
      const d = tap.result();
      etag = quotedEtag(d.md5);
      checksums = d.checksums;
    }
    const blocks: BlockEntry[] = [];
    const written: BlockEntry[] = [];
    try {
      for (const p of pieces) {
        if ('shared' in p) blocks.push(p.shared);
        else {
          const stored = await this.store.blocks.writeStream(readSource(p.copy));
          blocks.push(...stored.blocks);
          written.push(...stored.blocks);
        }
      }
    } catch (e) {
      await this.store.blocks.discard(blockRefs(written)).catch(() => undefined);
      throw e;
    }
    return this.savePart(bucket, upload, input.partNumber, blocks, { size, etag, checksums }, written);
  }

  async complete(input: {
    bucket: string;
    key: string;
    uploadId: string;
    parts: { partNumber: number; etag: string }[];
    ifNoneMatch?: string;
    ifMatch?: string;
    /**
     * x-amz-checksum-* of the whole object as the client computed it (composite: of the parts'
     * checksums, `-N` optional); BadDigest when it differs. Pass only composite ones: a FULL_OBJECT
     * checksum cannot be checked (parts are stored with their own checksums only).
     */
    expectedChecksums?: Partial<Record<ChecksumAlgorithm, string>>;
  }): Promise<PutObjectResult & { location?: string }> {
    const bucket = await this.buckets.resolve(input.bucket);
    if (input.ifNoneMatch !== undefined && input.ifNoneMatch.trim() !== '*')
      throw s3err('NotImplemented', 'If-None-Match on CompleteMultipartUpload only supports *');
    let upload = await this.resolveUpload(bucket, input.key, input.uploadId, true);
    // Conditional completion (If-None-Match: * / If-Match), as for PutObject: the key is claimed
    // until the object is visible. A completion already under way (a retry) just finishes.
    let claim: { token: string } | undefined;
    try {
      if (!upload.completingVid) {
        const plan = await this.plan(bucket, upload, input.parts);
        for (const [alg, expected] of Object.entries(input.expectedChecksums ?? {}) as [ChecksumAlgorithm, string][]) {
          const actual = plan.checksums[alg];
          if (!actual || (expected.trim() !== actual && expected.trim() !== actual.replace(/-\d+$/, '')))
            throw s3err('BadDigest', `The ${alg} you specified did not match the calculated checksum.`);
        }
        if (input.ifNoneMatch !== undefined || input.ifMatch !== undefined)
          claim = await this.store.claimConditional(bucket, input.key, input.ifNoneMatch, input.ifMatch);
        const { vid } = this.store.newVid('object');
        const claimed = await this.ms.uploads.claimCompletion(upload, vid, JSON.stringify(plan));
        if (!claimed || claimed.completed) {
          if (claimed?.completed) upload = claimed;
          else throw noSuchUpload(input.uploadId);
        } else upload = claimed;
      }
      const plan = JSON.parse(upload.completingParts!) as CompletionPlan;
      const vid = upload.completingVid!;
      if (!upload.completed) await this.build(bucket, input.key, upload, plan, vid);
      return {
        versionId: plan.isNull ? 'null' : encodeId(vid),
        etag: plan.etag,
        size: plan.size,
        checksums: plan.checksums,
      };
    } finally {
      if (claim) await this.store.releaseClaim(bucket, input.key, claim);
    }
  }

  /** Validates the requested part list against the stored parts (S3's rules) into a plan. */
  private async plan(
    bucket: BucketRow,
    upload: UploadRow,
    requested: { partNumber: number; etag: string }[],
  ): Promise<CompletionPlan> {
    if (requested.length === 0) throw s3err('MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema');
    for (let i = 1; i < requested.length; i++)
      if (requested[i].partNumber <= requested[i - 1].partNumber)
        throw s3err('InvalidPartOrder', 'The list of parts was not in ascending order. Parts must be ordered by part number.');
    const stored = new Map<number, PartRow>();
    for await (const row of this.ms.uploads.allPartRows(upload.uploadId)) {
      if (!stored.has(row.partNumber)) stored.set(row.partNumber, row);
    }
    const chosen: PartRow[] = [];
    for (const r of requested) {
      const row = stored.get(r.partNumber);
      if (!row || normalizeEtag(row.etag) !== normalizeEtag(r.etag ?? ''))
        throw s3err(
          'InvalidPart',
          "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
          { UploadId: encodeId(upload.uploadId), PartNumber: String(r.partNumber), ETag: r.etag ?? '' },
        );
      chosen.push(row);
    }
    for (let i = 0; i < chosen.length - 1; i++) {
      if (chosen[i].size < this.store.settings.minPartSize)
        throw s3err('EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed object size.', {
          ProposedSize: String(chosen[i].size),
          MinSizeAllowed: String(this.store.settings.minPartSize),
          PartNumber: String(chosen[i].partNumber),
          ETag: chosen[i].etag,
        });
    }
    const checksums: Partial<Record<ChecksumAlgorithm, string>> = {};
    const alg = upload.checksumAlgorithm as ChecksumAlgorithm | undefined;
    if (alg && chosen.every((p) => p.checksums[alg])) checksums[alg] = compositeChecksum(alg, chosen.map((p) => p.checksums[alg]));
    return {
      parts: chosen.map((p) => ({ n: p.partNumber, pid: p.pid })),
      etag: multipartEtag(chosen.map((p) => p.etag)),
      size: chosen.reduce((s, p) => s + p.size, 0),
      isNull: bucket.versioning !== 'Enabled',
      checksums,
    };
  }

  /** Steps 2 and 3 of the completion; every step idempotent (see the class comment). */
  private async build(bucket: BucketRow, key: string, upload: UploadRow, plan: CompletionPlan, vid: string): Promise<void> {
    const all: PartRow[] = [];
    for await (const row of this.ms.uploads.allPartRows(upload.uploadId)) all.push(row);
    const visible = await this.versionVisible(bucket, key, vid);
    if (!visible) {
      const blocks: BlockEntry[] = [];
      for (const p of plan.parts) {
        const row = all.find((r) => r.partNumber === p.n && r.pid === p.pid);
        if (!row) throw s3err('InvalidPart', `part ${p.n} of the completion plan is gone`, { PartNumber: String(p.n) });
        blocks.push(...row.blocks.map((b) => ({ ...b, partNumber: p.n })));
      }
      const meta = JSON.parse(upload.meta) as ObjectMeta;
      await this.store.commit({
        bucket,
        key,
        kind: 'object',
        isNull: plan.isNull,
        owner: { id: upload.ownerId, displayName: upload.ownerName },
        blocks,
        size: plan.size,
        etag: plan.etag,
        storageClass: upload.storageClass,
        meta: { ...meta, userMeta: meta.userMeta ?? {} },
        checksums: plan.checksums,
        partCount: plan.parts.length,
        vid,
      });
    }
    const planned = new Set(plan.parts.map((p) => p.pid));
    await forEachLimited(all, 16, (row) => this.dropPartRow(bucket, row, !planned.has(row.pid)));
    await this.ms.uploads.deleteAllParts(upload.uploadId);
    await this.ms.uploads.markCompleted({ ...upload, completed: true }, COMPLETED_TTL_SECONDS);
  }

  /**
   * An upload whose completion committed its version but crashed before the cleanup (step 3) is
   * no longer an upload for clients: like abort, finish that cleanup (idempotent) and report it gone.
   */
  private async finishedCompletion(bucket: BucketRow, key: string, upload: UploadRow): Promise<boolean> {
    if (!upload.completingVid || upload.completed) return false;
    if (!(await this.versionVisible(bucket, key, upload.completingVid))) return false;
    await this.build(bucket, key, upload, JSON.parse(upload.completingParts!) as CompletionPlan, upload.completingVid);
    return true;
  }

  private async versionVisible(bucket: BucketRow, key: string, vid: string): Promise<boolean> {
    const { parent, name } = splitKey(key);
    return !!(await this.ms.versions.get({
      bucketId: bucket.bucketId,
      parent,
      name,
      vts: vtsOfVid(uuidBytes(vid)),
      vid,
    }));
  }

  async abort(bucketName: string, key: string, uploadId: string): Promise<void> {
    const bucket = await this.buckets.resolve(bucketName);
    await this.abortIn(bucket, key, uploadId);
  }

  /**
   * Aborts every multipart upload in progress in a bucket (DeleteBucket: S3 deletes a bucket whose
   * only contents are uploads in progress, and those uploads with it). An upload whose completion
   * is under way is left to it (the completion makes an object, so the bucket is not empty after
   * all): that is an OperationAborted error for the caller. Returns how many uploads were aborted.
   */
  async abortAll(bucket: BucketRow): Promise<number> {
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

  private async abortIn(bucket: BucketRow, key: string, uploadId: string): Promise<void> {
    let upload = await this.resolveUpload(bucket, key, uploadId);
    if (!upload.completingVid) {
      if (await this.ms.uploads.delete(upload, true)) {
        await this.dropAllParts(bucket, upload);
        return;
      }
      upload = await this.resolveUpload(bucket, key, uploadId);
    }
    const vid = upload.completingVid!;
    const plan = JSON.parse(upload.completingParts!) as CompletionPlan;
    if (await this.versionVisible(bucket, key, vid)) {
      // the completion won: finish its cleanup; the upload no longer exists for the client
      await this.build(bucket, key, upload, plan, vid);
      throw noSuchUpload(uploadId);
    }
    if ((this.store.nowMicros() - vtsOfVid(uuidBytes(vid))) / 1000 < STALE_COMPLETION_MS)
      throw s3err('OperationAborted', 'A conflicting conditional operation is currently in progress against this resource. Please try again.');
    if (!(await this.ms.uploads.deleteClaimed(upload, vid))) throw noSuchUpload(uploadId);
    const blocks = await this.ms.versions.readBlocks(vid);
    if (blocks.length > 0) await this.store.blocks.releaseRefs(blockRefs(blocks), versionRef(vid));
    await this.ms.versions.deleteManifest(vid);
    await this.dropAllParts(bucket, upload);
  }

  private async dropAllParts(bucket: BucketRow, upload: Pick<UploadRow, 'uploadId'>, always = true): Promise<number> {
    const rows: PartRow[] = [];
    for await (const row of this.ms.uploads.allPartRows(upload.uploadId)) rows.push(row);
    await forEachLimited(rows, 16, (row) => this.dropPartRow(bucket, row, true));
    if (always || rows.length > 0) await this.ms.uploads.deleteAllParts(upload.uploadId);
    return rows.length;
  }

  /**
   * Finishes an abort that died after removing the upload row: the part rows still there are
   * released (blocks, usage) and removed. Only for an upload whose row is gone (the caller read
   * it absent): a live upload's parts belong to it. Returns how many part rows were dropped.
   */
  async dropLeftoverParts(bucket: BucketRow, uploadVid: string): Promise<number> {
    // no partition tombstone when there is nothing to drop (the usual stale redelivery)
    return this.dropAllParts(bucket, { uploadId: uploadVid }, false);
  }

  async listParts(input: { bucket: string; key: string; uploadId: string; partNumberMarker?: number; maxParts: number }) {
    const bucket = await this.buckets.resolve(input.bucket);
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
      upload: this.uploadOf(input.bucket, input.key, upload),
      parts,
      isTruncated,
      nextPartNumberMarker: isTruncated ? parts[parts.length - 1]?.partNumber : undefined,
    };
  }

  async listUploads(input: {
    bucket: string;
    prefix?: string;
    delimiter?: string;
    keyMarker?: string;
    uploadIdMarker?: string;
    maxUploads: number;
  }) {
    const bucket = await this.buckets.resolve(input.bucket);
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
      pageSize: listPageSize(input.maxUploads),
      keyFilter: () => (row) => !row.completed,
    });
    const { events, isTruncated } = await takePage(walker, input.maxUploads);
    const uploads: Upload[] = [];
    const commonPrefixes: string[] = [];
    for (const e of events) {
      if (e.kind === 'prefix') commonPrefixes.push(e.prefix);
      else if (!(await this.finishedCompletion(bucket, e.key, e.row))) uploads.push(this.uploadOf(input.bucket, e.key, e.row));
    }
    const last = events[events.length - 1];
    return {
      uploads,
      commonPrefixes,
      isTruncated,
      nextKeyMarker: isTruncated && last ? (last.kind === 'row' ? last.key : last.prefix) : undefined,
      nextUploadIdMarker: isTruncated && last?.kind === 'row' ? encodeId(last.row.uploadId) : undefined,
    };
  }
}
