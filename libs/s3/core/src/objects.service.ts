import { Readable } from 'stream';
import { openBuffer } from '@ostore/s3/crypto';
import type { ContextLogger } from '@ostore/shared/observability';
import { BlockUnavailableError } from '@ostore/storage/blocks';
import type { BlockEntry, VersionRow } from '@ostore/metastore/data-access';
import type {
  BucketRef,
  ByteRange,
  StoredAcl,
  CopySource,
  DeleteOutcome,
  DeleteResult,
  ListObjectsInput,
  ListObjectsResult,
  ListVersionsInput,
  ListVersionsResult,
  ObjectMeta,
  ObjectsService,
  ObjectVersion,
  Owner,
  PutObjectInput,
  PutObjectResult,
} from './api';
import type { BucketResolver } from './bucket-resolver';
import { validateTags } from './buckets.service';
import { quotedEtag } from './checksums';
import { invalidVersionId, methodNotAllowedOnMarker, noSuchKey, noSuchVersion, s3err } from './errors';
import { splitKey, validateKey } from './keys';
import { listObjects, listVersions } from './object-listings';
import { decodeId, NULL_VERSION_ID, publicVersionIdOf, uuidBytes, vtsOfVid } from './version-ids';
import type { BucketKey } from './version-data';
import { objectMetaOf, toObjectVersion } from './version-mapping';
import { openSealedBlocks, partsOf } from './sealed-read';
import { rewrapBucketRecords } from './sse-records';
import type { VersionStore } from './version-store';

export function validateObjectTags(tags: Record<string, string> | undefined): void {
  if (!tags) return;
  if (Object.keys(tags).length > 10) throw s3err('BadRequest', 'Object tags cannot be greater than 10');
  validateTags(tags);
}

/** The bytes of an inline body (or of the range asked for), as a stream. */
function inlineStream(body: Buffer, range?: ByteRange): Readable {
  return Readable.from([range ? body.subarray(range.start, range.endInclusive + 1) : body], { objectMode: false });
}

/** S3 object operations: PUT/HEAD/GET/DELETE/COPY, listings, tags and ACLs (see VersionStore). */
export class CassandraObjectsService implements ObjectsService {
  constructor(
    private readonly buckets: BucketResolver,
    private readonly store: VersionStore,
    private readonly log: ContextLogger,
  ) {}

  /** The addressed bucket, after the key passed S3's key rule (the one check of it). */
  private target(ref: BucketRef, key: string): Promise<BucketKey> {
    validateKey(key, this.store.limits.maxKeyBytes);
    return this.buckets.target(ref);
  }

  async put(input: PutObjectInput): Promise<PutObjectResult> {
    const bucket = await this.target(input.bucket, input.key);
    validateObjectTags(input.meta.tags);
    if (input.ifNoneMatch !== undefined && input.ifNoneMatch.trim() !== '*')
      throw s3err('NotImplemented', 'If-None-Match on PUT only supports *');
    const conditional = input.ifNoneMatch !== undefined || input.ifMatch !== undefined;
    // a write whose condition already fails is refused before its body is stored
    if (conditional) await this.store.precheckConditional(bucket, input.key, input.ifNoneMatch, input.ifMatch);
    // a quota bucket admits the declared size before the body is stored (QuotaExceeded)
    const ticket = await this.store.admitQuota(bucket, { bytes: input.size ?? 0, objects: 1 });
    let received: Awaited<ReturnType<VersionStore['receiveBody']>>;
    try {
      received = await this.store.receiveBody(input.body, input.checksumAlgorithms, input.verify, input.encryption?.dataKey);
    } catch (e) {
      ticket?.release();
      throw e;
    }
    const { stored, digests, inline } = received;
    let claim: { token: string } | undefined;
    try {
      await this.store.fitQuota(ticket, stored.size, []);
      if (conditional) claim = await this.store.claimConditional(bucket, input.key, input.ifNoneMatch, input.ifMatch);
      const row = await this.store.commit({
        bucket,
        key: input.key,
        kind: 'object',
        isNull: bucket.versioning !== 'Enabled',
        owner: input.owner,
        blocks: stored.blocks,
        inlineBody: inline,
        size: stored.size,
        etag: input.encryption?.etag ? input.encryption.etag(digests.md5) : quotedEtag(digests.md5),
        storageClass: input.meta.storageClass ?? 'STANDARD',
        meta: input.meta,
        checksums: digests.checksums,
      });
      await this.store.recordUsage(bucket, 'store', stored.size, 1, ticket);
      return {
        versionId: publicVersionIdOf(row),
        etag: row.etag,
        size: stored.size,
        checksums: digests.checksums,
      };
    } catch (e) {
      // never deletes referenced blocks: only undoes what did not get committed
      await this.store.discardBlocks(stored.blocks);
      throw e;
    } finally {
      ticket?.release();
      if (claim) await this.store.releaseClaim(bucket, input.key, claim);
    }
  }

  async head(ref: BucketRef, key: string, versionId?: string): Promise<ObjectVersion> {
    const bucket = await this.target(ref, key);
    // One read when the row carries its metadata snapshot (migration 006), else `version_meta` too.
    if (versionId === undefined) {
      const row = await this.store.newestToServe(bucket, key, { body: true });
      if (!row || row.isGhost) throw noSuchKey(key);
      if (row.isDeleteMarker) throw noSuchKey(key, markerOf(row));
      const meta = await this.store.metaOf(row);
      if (!meta) throw noSuchKey(key);
      return toObjectVersion(bucket.name, key, row, true, meta);
    }
    const [row, newest] = await Promise.all([
      this.store.findVersion(bucket.bucketId, key, versionId, { body: true }),
      this.store.newest(bucket.bucketId, key),
    ]);
    if (!row) throw noSuchVersion(key, versionId);
    if (row.isDeleteMarker) throw methodNotAllowedOnMarker(markerOf(row));
    const meta = await this.store.metaOf(row);
    if (!meta) throw noSuchVersion(key, versionId);
    return toObjectVersion(bucket.name, key, row, newest?.vid === row.vid, meta);
  }

  /** The byte range of part `partNumber` of a version (the whole object is part 1 of a simple object). */
  async partRange(version: ObjectVersion, partNumber: number): Promise<ByteRange & { checksum?: string }> {
    if (!version.partCount) {
      if (partNumber !== 1 || version.size === 0) throw this.invalidPartNumber(partNumber, 1);
      return { start: 0, endInclusive: version.size - 1 };
    }
    if (partNumber < 1 || partNumber > version.partCount) throw this.invalidPartNumber(partNumber, version.partCount);
    const part = partsOf(await this.store.readBlocks(version.manifestId!), !!version.meta.sse).find((p) => p.partNumber === partNumber);
    if (!part || part.plainSize === 0) throw this.invalidPartNumber(partNumber, version.partCount);
    return { start: part.plainStart, endInclusive: part.plainStart + part.plainSize - 1, checksum: part.blocks[0]?.partChecksum };
  }

  async partSizes(version: ObjectVersion): Promise<{ partNumber: number; size: number; checksum?: string }[]> {
    if (!version.partCount || !version.manifestId) return [];
    // an encrypted object's blocks hold sealed bytes: each part's plaintext size follows from them
    return partsOf(await this.store.readBlocks(version.manifestId), !!version.meta.sse).map((p) => ({
      partNumber: p.partNumber,
      size: p.plainSize,
      checksum: p.blocks[0]?.partChecksum,
    }));
  }

  private invalidPartNumber(partNumber: number, count: number) {
    return s3err('InvalidPartNumber', 'The requested partnumber is not satisfiable', {
      PartNumberRequested: String(partNumber),
      ActualPartCount: String(count),
    });
  }

  async openBody(version: ObjectVersion, range?: ByteRange, partNumber?: number, dataKey?: Buffer): Promise<Readable> {
    if (!version.manifestId) throw new Error('openBody needs a version returned by head()');
    if (partNumber !== undefined && range === undefined) range = await this.partRange(version, partNumber);
    if (range) {
      if (range.start < 0 || range.start >= version.size || range.endInclusive < range.start)
        throw s3err('InvalidRange', 'The requested range is not satisfiable', {
          RangeRequested: `bytes=${range.start}-${range.endInclusive}`,
          ActualObjectSize: String(version.size),
        });
      range = { start: range.start, endInclusive: Math.min(range.endInclusive, version.size - 1) };
    }
    // an encrypted body is opened segment by segment, only those the range covers (see @ostore/s3/crypto)
    const key = version.meta.sse ? dataKey : undefined;
    if (version.meta.sse && !key) throw new Error('an encrypted version is opened with its data key');
    if (key && version.size === 0) return Readable.from([], { objectMode: false });
    const source = version.inlineBody ? { inline: version.inlineBody } : await this.storedBody(version, version.manifestId);
    if ('inline' in source) {
      if (!key) return inlineStream(source.inline, range);
      return Readable.from([openBuffer(key, source.inline, version.size, range)], { objectMode: false });
    }
    if (!key) return this.store.openBlocks(source.blocks, range);
    return openSealedBlocks((blocks, r) => this.store.openBlocks(blocks, r), source.blocks, version.size, key, !!version.partCount, range);
  }

  /** Where a version's stored bytes are: its blocks, or its inline body (in its row or, when larger, its metadata row). */
  private async storedBody(version: ObjectVersion, vid: string): Promise<{ inline: Buffer } | { blocks: BlockEntry[] }> {
    const blocks = await this.store.readBlocks(vid);
    if (blocks.length === 0 && version.size > 0) {
      // a version `head` did not fill in: a non-empty body without blocks is stored inline
      const { bucketId } = await this.buckets.resolve(version.bucket);
      const row = await this.store.versionRow(bucketId, version.key, vid, { body: true });
      const inline = await this.store.inlineBodyOf({ vid, inlineBody: row?.inlineBody });
      if (inline) return { inline };
    }
    return { blocks };
  }

  /**
   * DeleteObject. Without a version id: Enabled -> a new delete marker; Suspended -> a null delete
   * marker replacing the null version; Unversioned -> a ghost (invisible null marker with a TTL)
   * replacing the null version, so that a slower concurrent PUT with an older vts stays deleted.
   * With a version id: the version is removed for good and the index repaired if it was current.
   * Deleting what does not exist succeeds, as in S3.
   */
  async delete(ref: BucketRef, key: string, owner: Owner, versionId?: string): Promise<DeleteResult> {
    const bucket = await this.target(ref, key);
    if (versionId !== undefined) return this.deleteVersion(bucket, key, versionId);
    if (bucket.versioning === 'Enabled') {
      const row = await this.store.commit({ bucket, key, kind: 'marker', isNull: false, owner });
      return { versionId: publicVersionIdOf(row), deleteMarker: true };
    }
    if (bucket.versioning === 'Suspended') {
      await this.store.commit({ bucket, key, kind: 'marker', isNull: true, owner });
      return { versionId: NULL_VERSION_ID, deleteMarker: true };
    }
    const newest = await this.store.newest(bucket.bucketId, key);
    if (newest && !newest.isGhost) await this.store.commit({ bucket, key, kind: 'ghost', isNull: true, owner });
    return { deleteMarker: false };
  }

  /**
   * DeleteObjects (see ObjectsService.deleteMany): a key with a version id goes through
   * deleteVersion as DeleteObject does, the others through PartitionDeletes by directory.
   */
  async deleteMany(ref: BucketRef, owner: Owner, items: readonly { key: string; versionId?: string }[]): Promise<DeleteOutcome[]> {
    const bucket = await this.buckets.target(ref);
    const out: DeleteOutcome[] = new Array(items.length);
    const latest: number[] = [];
    const byVersion: number[] = [];
    items.forEach((item, i) => {
      try {
        validateKey(item.key, this.store.limits.maxKeyBytes);
        (item.versionId === undefined ? latest : byVersion).push(i);
      } catch (error) {
        out[i] = { ok: false, error };
      }
    });
    let next = 0;
    const versionWorker = async () => {
      for (let i = byVersion[next++]; i !== undefined; i = byVersion[next++]) {
        const { key, versionId } = items[i];
        out[i] = await this.deleteVersion(bucket, key, versionId!).then(
          (result): DeleteOutcome => ({ ok: true, result }),
          (error: unknown): DeleteOutcome => ({ ok: false, error }),
        );
      }
    };
    const [answers] = await Promise.all([
      this.store.partitionDeletes.deleteLatest(bucket, owner, latest.map((i) => items[i].key)),
      ...Array.from({ length: Math.min(16, byVersion.length) }, versionWorker),
    ]);
    answers.forEach((a, j) => (out[latest[j]] = a));
    return out;
  }

  private async deleteVersion(bucket: BucketKey, key: string, versionId: string): Promise<DeleteResult> {
    const { parent, name } = splitKey(key);
    const bucketId = bucket.bucketId;
    let targets: { vts: number; vid: string; isNull: boolean }[];
    if (versionId === NULL_VERSION_ID) {
      targets = (await this.store.nullRows(bucketId, key)).map((l) => ({ ...l, isNull: true }));
    } else {
      const vid = decodeId(versionId);
      if (!vid) throw invalidVersionId(versionId);
      targets = [{ vts: vtsOfVid(uuidBytes(vid)), vid, isNull: false }];
    }
    const newest = await this.store.newest(bucketId, key);
    let wasMarker = false;
    let removedCurrent = false;
    let floor = 0;
    for (const t of targets) {
      const loc = { bucketId, parent, name, vts: t.vts, vid: t.vid };
      if (!t.isNull) {
        const row = await this.store.rowAt(loc);
        if (!row || row.isNull) continue;
      }
      const row = await this.store.removeVersion(bucket, loc, t.isNull);
      if (row && t === targets[0]) wasMarker = row.isDeleteMarker && !row.isGhost;
      if (newest && newest.vid === t.vid) removedCurrent = true;
      floor = Math.max(floor, t.vts);
    }
    if (removedCurrent) await this.store.reconcileIndex(bucketId, parent, name, floor);
    return { versionId, deleteMarker: wasMarker };
  }

  async copy(input: {
    source: CopySource;
    bucket: BucketRef;
    key: string;
    owner: Owner;
    metadataDirective: 'COPY' | 'REPLACE';
    meta: ObjectMeta;
    taggingDirective?: 'COPY' | 'REPLACE';
    ifNoneMatch?: string;
    ifMatch?: string;
  }): Promise<PutObjectResult & { lastModified: Date; sourceVersionId: string }> {
    const dst = await this.target(input.bucket, input.key);
    if (input.ifNoneMatch !== undefined && input.ifNoneMatch.trim() !== '*')
      throw s3err('NotImplemented', 'If-None-Match on CopyObject only supports *');
    const conditional = input.ifNoneMatch !== undefined || input.ifMatch !== undefined;
    if (conditional) await this.store.precheckConditional(dst, input.key, input.ifNoneMatch, input.ifMatch);
    const sameBucket = input.source.bucket === dst.name;
    const srcBucket = sameBucket ? dst : await this.buckets.resolve(input.source.bucket);
    if (sameBucket && input.source.key === input.key && input.metadataDirective !== 'REPLACE' && input.meta.storageClass === undefined) {
      throw s3err(
        'InvalidRequest',
        "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
      );
    }
    for (let attempt = 0; ; attempt++) {
      const src = await this.copySource(srcBucket, input.source);
      const [meta, blocks] = await Promise.all([this.store.metaOf(src), this.store.blocksOf(src)]);
      // an inline source is copied byte for byte (it has no blocks to share)
      const inlineBody = src.inlineBody ?? meta?.inlineBody;
      if (!meta || (blocks.length === 0 && src.size > 0 && !inlineBody)) {
        if (attempt < 2) continue;
        throw noSuchKey(input.source.key);
      }
      const base = input.metadataDirective === 'REPLACE' ? input.meta : objectMetaOf(meta, src.storageClass);
      const newMeta: ObjectMeta = {
        ...base,
        userMeta: base.userMeta ?? {},
        tags: input.taggingDirective === 'REPLACE' ? (input.meta.tags ?? {}) : meta.tags,
        // S3 never copies the ACL: the copy gets the one requested, private by default
        acl: input.meta.acl ?? 'private',
        // the blocks (or inline body) are shared as stored: so is the record of their data key
        ...(meta.sse ? { sse: meta.sse } : {}),
      };
      validateObjectTags(newMeta.tags);
      const ticket = await this.store.admitQuota(dst, { bytes: src.size, objects: 1 });
      let claim: { token: string } | undefined;
      try {
        // the destination's condition (If-None-Match / If-Match) is decided by the claim's compare-and-set
        if (conditional) claim = await this.store.claimConditional(dst, input.key, input.ifNoneMatch, input.ifMatch);
        const row = await this.store.commit({
          bucket: dst,
          key: input.key,
          kind: 'object',
          isNull: dst.versioning !== 'Enabled',
          owner: input.owner,
          blocks,
          inlineBody,
          size: src.size,
          etag: src.etag,
          storageClass: input.meta.storageClass ?? 'STANDARD',
          meta: newMeta,
          checksums: meta.checksums,
          partCount: src.partCount,
        });
        await this.store.recordUsage(dst, 'copy', src.size, 1, ticket);
        return {
          versionId: publicVersionIdOf(row),
          etag: row.etag,
          size: row.size,
          checksums: meta.checksums,
          lastModified: row.lastModified,
          sourceVersionId: publicVersionIdOf(src),
        };
      } catch (e) {
        // the source lost its last reference while we were sharing its blocks: look again
        if (e instanceof BlockUnavailableError && attempt < 2) continue;
        if (e instanceof BlockUnavailableError) throw noSuchKey(input.source.key);
        throw e;
      } finally {
        ticket?.release();
        if (claim) await this.store.releaseClaim(dst, input.key, claim);
      }
    }
  }

  private async copySource(bucket: BucketKey, source: CopySource): Promise<VersionRow> {
    if (source.versionId !== undefined) {
      const row = await this.store.findVersion(bucket.bucketId, source.key, source.versionId, { body: true });
      if (!row) throw noSuchVersion(source.key, source.versionId);
      if (row.isDeleteMarker)
        throw s3err('InvalidRequest', 'The source of a copy request may not specifically refer to a delete marker by version id.');
      return row;
    }
    const row = await this.store.newest(bucket.bucketId, source.key, { body: true });
    if (!row || row.isDeleteMarker) throw noSuchKey(source.key);
    return row;
  }

  async list(input: ListObjectsInput): Promise<ListObjectsResult> {
    return listObjects(this.store, await this.buckets.target(input.bucket), input);
  }

  async listVersions(input: ListVersionsInput): Promise<ListVersionsResult> {
    return listVersions(this.store, await this.buckets.target(input.bucket), input);
  }

  /** The version a tagging/ACL call addresses (NoSuchKey / NoSuchVersion), with its snapshot (rowOnlyMeta). */
  private async version(ref: BucketRef, key: string, versionId?: string): Promise<VersionRow> {
    const bucket = await this.target(ref, key);
    if (versionId !== undefined) {
      const row = await this.store.findVersion(bucket.bucketId, key, versionId, { body: true });
      if (!row) throw noSuchVersion(key, versionId);
      if (row.isDeleteMarker) throw methodNotAllowedOnMarker(markerOf(row));
      return row;
    }
    const row = await this.store.newest(bucket.bucketId, key, { body: true });
    if (!row || row.isDeleteMarker) throw noSuchKey(key);
    return row;
  }

  async getTags(ref: BucketRef, key: string, versionId?: string) {
    const row = await this.version(ref, key, versionId);
    const meta = await this.store.metaOf(row);
    if (!meta) throw versionId ? noSuchVersion(key, versionId) : noSuchKey(key);
    return { versionId: publicVersionIdOf(row), tags: meta.tags };
  }

  async setTags(ref: BucketRef, key: string, tags: Record<string, string>, versionId?: string) {
    validateObjectTags(tags);
    return this.updateMeta(ref, key, versionId, { tags });
  }

  async deleteTags(ref: BucketRef, key: string, versionId?: string) {
    return this.updateMeta(ref, key, versionId, { tags: {} });
  }

  async setAcl(ref: BucketRef, key: string, acl: StoredAcl, versionId?: string): Promise<void> {
    await this.updateMeta(ref, key, versionId, { acl });
  }

  async rewrapRecords(ref: BucketRef, rewrap: (sse: string) => string | undefined) {
    return rewrapBucketRecords(this.store, (await this.buckets.target(ref)).bucketId, rewrap);
  }

  private async updateMeta(
    ref: BucketRef,
    key: string,
    versionId: string | undefined,
    change: { tags?: Record<string, string>; acl?: string },
  ): Promise<{ versionId: string }> {
    const row = await this.version(ref, key, versionId);
    if (!(await this.store.updateMeta(row, change))) throw versionId ? noSuchVersion(key, versionId) : noSuchKey(key);
    return { versionId: publicVersionIdOf(row) };
  }
}

/** The delete marker a row is, as errors about it carry it. */
function markerOf(row: VersionRow) {
  return { versionId: publicVersionIdOf(row), lastModified: row.lastModified };
}
