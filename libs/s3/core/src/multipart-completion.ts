import { BlockEntry, forEachLimited, Metastore, PartRow, UploadRow } from '@ostore/metastore/data-access';
import type { ChecksumAlgorithm, CompleteUploadInput, ObjectMeta, PutObjectResult } from './api';
import { multipartEtag, normalizeEtag } from './checksums';
import { noSuchUpload, s3err } from './errors';
import { multipartChecksum, verifyCompletionChecksum } from './object-checksum';
import { encodeId, uuidBytes, vtsOfVid } from './version-ids';
import type { BucketKey } from './version-data';
import type { VersionStore } from './version-store';
import { partRemovalEventId } from './usage';

/** The block reference a part row holds on each of its blocks. */
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
/** Plans made before the claim is refused for good because parts keep being replaced (each replacement moves the epoch). */
const MAX_PLAN_ATTEMPTS = 5;
/** How long a completed upload answers retried completions. */
const COMPLETED_TTL_SECONDS = 86400;

/**
 * The completion protocol of multipart uploads, crash-safe and idempotent:
 *   1. validate, then claim the upload with an LWT storing the vid and the plan (which part rows),
 *      under the parts epoch read before the parts were listed (a part replaced meanwhile moves it,
 *      and the plan is made again); a racing or retried completion adopts the existing claim;
 *   2. commit the version like a PUT (manifest, references, folders, one partition mutation),
 *      each block's part reference becoming the version's `v:<vid>` in one compare-and-set —
 *      every step idempotent, so a retry simply redoes them;
 *   3. release the references of the parts left out of the plan, remove every part row, then
 *      rewrite the upload row as completed with a TTL, so that a retry within a day returns the
 *      same answer.
 * A crash before 2 leaves a claimed upload (listed; abort undoes it once stale, dropping the
 * manifest and so the references already moved to it); a crash during 3 leaves part rows and
 * references that the retry or abort releases. Blocks are never orphaned: a block holds its part's
 * reference or the version's at every moment.
 */
export class MultipartCompletion {
  constructor(
    private readonly store: VersionStore,
    private readonly ms: Metastore,
  ) {}

  /** Steps 1-3 for an upload row read by the caller (possibly claimed or completed already). */
  async complete(bucket: BucketKey, upload: UploadRow, input: CompleteUploadInput): Promise<PutObjectResult & { sse?: string }> {
    // Conditional completion (If-None-Match: * / If-Match), as for PutObject: the key is claimed
    // until the object is visible. A completion already under way (a retry) just finishes.
    let claim: { token: string } | undefined;
    try {
      // the plan is made from parts listed after `upload` (and its parts epoch) was read; a part
      // replaced meanwhile moves the epoch and the claim is refused: plan again from the new row
      for (let attempt = 0; !upload.completingVid; attempt++) {
        if (attempt === MAX_PLAN_ATTEMPTS)
          throw s3err('OperationAborted', 'The parts of this upload kept being replaced while it was completed. Please try again.');
        const plan = await this.plan(bucket, upload, input);
        if (!claim && (input.ifNoneMatch !== undefined || input.ifMatch !== undefined))
          claim = await this.store.claimConditional(bucket, input.key, input.ifNoneMatch, input.ifMatch);
        const { vid } = this.store.newVid('object');
        const claimed = await this.ms.uploads.claimCompletion(upload, vid, JSON.stringify(plan));
        if (!claimed) throw noSuchUpload(input.uploadId);
        upload = claimed;
      }
      const plan = JSON.parse(upload.completingParts!) as CompletionPlan;
      const vid = upload.completingVid!;
      if (!upload.completed) await this.build(bucket, input.key, upload, plan, vid);
      return {
        versionId: plan.isNull ? 'null' : encodeId(vid),
        etag: plan.etag,
        size: plan.size,
        checksums: plan.checksums,
        // the object is encrypted as the upload was (its record, from CreateMultipartUpload)
        sse: (JSON.parse(upload.meta) as ObjectMeta).sse,
      };
    } finally {
      if (claim) await this.store.releaseClaim(bucket, input.key, claim);
    }
  }

  /** Validates the requested part list against the stored parts (S3's rules) into a plan. */
  private async plan(bucket: BucketKey, upload: UploadRow, input: CompleteUploadInput): Promise<CompletionPlan> {
    const requested = input.parts;
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
    const { minPartSize } = this.store.limits;
    for (let i = 0; i < chosen.length - 1; i++) {
      if (chosen[i].size < minPartSize)
        throw s3err('EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed object size.', {
          ProposedSize: String(chosen[i].size),
          MinSizeAllowed: String(minPartSize),
          PartNumber: String(chosen[i].partNumber),
          ETag: chosen[i].etag,
        });
    }
    const checksum = multipartChecksum(upload, chosen);
    verifyCompletionChecksum(upload, checksum, input.expectedChecksums ?? {}, input.expectedChecksumType);
    const checksums: Partial<Record<ChecksumAlgorithm, string>> = checksum ? { [checksum.algorithm]: checksum.value } : {};
    return {
      parts: chosen.map((p) => ({ n: p.partNumber, pid: p.pid })),
      etag: multipartEtag(chosen.map((p) => p.etag)),
      size: chosen.reduce((s, p) => s + p.size, 0),
      isNull: bucket.versioning !== 'Enabled',
      checksums,
    };
  }

  /** Steps 2 and 3 of the completion; every step idempotent (see the class comment). */
  private async build(bucket: BucketKey, key: string, upload: UploadRow, plan: CompletionPlan, vid: string): Promise<void> {
    const all: PartRow[] = [];
    for await (const row of this.ms.uploads.allPartRows(upload.uploadId)) all.push(row);
    const visible = await this.versionVisible(bucket, key, vid);
    if (!visible) {
      const blocks: BlockEntry[] = [];
      for (const p of plan.parts) {
        const row = all.find((r) => r.partNumber === p.n && r.pid === p.pid);
        if (!row) throw s3err('InvalidPart', `part ${p.n} of the completion plan is gone`, { PartNumber: String(p.n) });
        // the part's own checksum rides on its first block (GetObject partNumber, GetObjectAttributes)
        const partChecksum = upload.checksumAlgorithm ? row.checksums[upload.checksumAlgorithm] : undefined;
        blocks.push(...row.blocks.map((b, i) => ({ ...b, partNumber: p.n, partChecksum: i === 0 ? partChecksum : undefined })));
      }
      const meta = JSON.parse(upload.meta) as ObjectMeta;
      const pidOf = new Map(plan.parts.map((p) => [p.n, p.pid]));
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
        // each block's part reference becomes the version's (one compare-and-set per block)
        refsFrom: (b) => partRef(upload.uploadId, b.partNumber!, pidOf.get(b.partNumber!)!),
      });
      await this.store.recordUsage(bucket, 'store', 0, 1);
    }
    const planned = new Set(plan.parts.map((p) => p.pid));
    // The planned parts' references moved to the version just now: their rows only have to go,
    // which the partition delete below does. After an earlier attempt's commit (a retry, an abort
    // finding the version) every row is released first, which is idempotent.
    const toDrop = visible ? all : all.filter((row) => !planned.has(row.pid));
    await forEachLimited(toDrop, 16, (row) => this.dropPartRow(bucket, row, !planned.has(row.pid)));
    await this.ms.uploads.deleteAllParts(upload.uploadId);
    await this.ms.uploads.markCompleted({ ...upload, completed: true }, COMPLETED_TTL_SECONDS);
  }

  /**
   * An upload whose completion committed its version but crashed before the cleanup (step 3) is
   * no longer an upload for clients: like abort, finish that cleanup (idempotent) and report it gone.
   */
  async finished(bucket: BucketKey, key: string, upload: UploadRow): Promise<boolean> {
    if (!upload.completingVid || upload.completed) return false;
    if (!(await this.versionVisible(bucket, key, upload.completingVid))) return false;
    await this.build(bucket, key, upload, JSON.parse(upload.completingParts!) as CompletionPlan, upload.completingVid);
    return true;
  }

  /**
   * Abort of an upload whose completion is claimed: if the completion won, its cleanup is
   * finished and the upload is gone (NoSuchUpload); a completion under way for less than
   * STALE_COMPLETION_MS is left to it (OperationAborted); an older one is presumed dead and undone.
   * Returns when the caller may drop the upload's parts.
   */
  async abandon(bucket: BucketKey, key: string, upload: UploadRow, uploadId: string): Promise<void> {
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
    await this.store.dropManifest(vid);
  }

  /** Whether the completion claimed in `upload` (its `completingVid` set) took the part row `pid`. */
  plans(upload: UploadRow, pid: string): boolean {
    return !!upload.completingParts && (JSON.parse(upload.completingParts) as CompletionPlan).parts.some((p) => p.pid === pid);
  }

  /** Releases a part row's blocks and removes the row (its bytes reported removed when `countUsage`). */
  async dropPartRow(bucket: BucketKey, row: PartRow, countUsage: boolean): Promise<void> {
    await this.store.releaseRefs(row.blocks, partRef(row.uploadId, row.partNumber, row.pid));
    await this.ms.uploads.deletePartRow(row.uploadId, row.partNumber, row.pid);
    if (countUsage) await this.store.recordUsage(bucket, 'remove', -row.size, 0, undefined, partRemovalEventId(row.uploadId, row.partNumber, row.pid));
  }

  private async versionVisible(bucket: BucketKey, key: string, vid: string): Promise<boolean> {
    return !!(await this.store.versionRow(bucket.bucketId, key, vid));
  }
}
