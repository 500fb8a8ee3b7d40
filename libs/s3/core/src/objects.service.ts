import { Readable } from 'stream';
import type { ContextLogger } from '@ostore/shared/observability';
import { BlockUnavailableError } from '@ostore/storage/blocks';
import type { BucketRow, IndexRow, VersionMetaRow, VersionRow } from '@ostore/metastore/data-access';
import type {
  ByteRange,
  CannedAcl,
  CopySource,
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
import { receiveBody } from './body';
import { CassandraBucketsService, validateTags } from './buckets.service';
import { quotedEtag } from './checksums';
import { invalidVersionId, noSuchKey, noSuchVersion, s3err } from './errors';
import { splitKey } from './keys';
import { objectsSource, versionsSource } from './listing/sources';
import { takePage, TreeWalker } from './listing/tree-walker';
import { versionKeyFilter } from './listing/version-filter';
import { decodeId, NULL_VERSION_ID, uuidBytes, vtsOfVid } from './version-ids';
import { blockRefs, objectMetaOf, VersionStore } from './version-store';

/** Listing page sizes: a little more than asked (a page may skip hidden rows), at most 1000. */
export const listPageSize = (maxKeys: number) => Math.max(10, Math.min(maxKeys + 1, 1000));

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
    private readonly buckets: CassandraBucketsService,
    private readonly store: VersionStore,
    private readonly log: ContextLogger,
  ) {}

  private get ms() {
    return this.store.ms;
  }

  validateKey(key: string): void {
    if (!key) throw s3err('InvalidArgument', 'The key must not be empty');
    if (Buffer.byteLength(key) > this.store.settings.maxKeyBytes)
      throw s3err('KeyTooLongError', 'Your key is too long');
  }

  async put(input: PutObjectInput): Promise<PutObjectResult> {
    const bucket = await this.buckets.resolve(input.bucket);
    this.validateKey(input.key);
    validateObjectTags(input.meta.tags);
    if (input.ifNoneMatch !== undefined && input.ifNoneMatch.trim() !== '*')
      throw s3err('NotImplemented', 'If-None-Match on PUT only supports *');
    const { stored, digests, inline } = await receiveBody(
      this.store.blocks,
      input.body,
      input.checksumAlgorithms,
      input.verify,
      this.store.settings.inlineBodyMaxBytes,
    );
    const conditional = input.ifNoneMatch !== undefined || input.ifMatch !== undefined;
    let claim: { token: string } | undefined;
    try {
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
        etag: quotedEtag(digests.md5),
        storageClass: input.meta.storageClass ?? 'STANDARD',
        meta: input.meta,
        checksums: digests.checksums,
      });
      this.store.recordUsage(bucket, 'store', stored.size);
      return {
        versionId: this.store.versionIdOf(row),
        etag: row.etag,
        size: stored.size,
        checksums: digests.checksums,
      };
    } catch (e) {
      // never deletes referenced blocks: only undoes what did not get committed
      await this.store.blocks.discard(stored.blocks).catch(() => undefined);
      throw e;
    } finally {
      if (claim) await this.store.releaseClaim(bucket, input.key, claim);
    }
  }

  async head(bucketName: string, key: string, versionId?: string): Promise<ObjectVersion> {
    const bucket = await this.buckets.resolve(bucketName);
    // One read when the row carries its metadata snapshot (migration 006), else `version_meta` too.
    if (versionId === undefined) {
      const row = await this.store.newest(bucket.bucketId, key, { body: true });
      if (!row || row.isGhost) throw noSuchKey(key);
      if (row.isDeleteMarker)
        throw noSuchKey(key, { 'x-amz-delete-marker': 'true', 'x-amz-version-id': this.store.versionIdOf(row) });
      const meta = await this.metaOf(row);
      if (!meta) throw noSuchKey(key);
      return this.store.toObjectVersion(bucketName, key, row, true, meta);
    }
    const [row, newest] = await Promise.all([
      this.store.findVersion(bucket.bucketId, key, versionId, { body: true }),
      this.store.newest(bucket.bucketId, key),
    ]);
    if (!row) throw noSuchVersion(key, versionId);
    if (row.isDeleteMarker) throw this.methodNotAllowedOnMarker(row);
    const meta = await this.metaOf(row);
    if (!meta) throw noSuchVersion(key, versionId);
    return this.store.toObjectVersion(bucketName, key, row, newest?.vid === row.vid, meta);
  }

  /**
   * The metadata of a row read with its body columns: the row's snapshot, else `version_meta`
   * (with the inline body unless the row holds it).
   */
  private async metaOf(row: VersionRow): Promise<VersionMetaRow | undefined> {
    return row.snapshot ?? (await this.ms.versions.readMeta(row.vid, { inlineBody: !row.inlineBody }));
  }

  private methodNotAllowedOnMarker(row: VersionRow) {
    return s3err('MethodNotAllowed', 'The specified method is not allowed against this resource.', {
      'x-amz-delete-marker': 'true',
      'x-amz-version-id': this.store.versionIdOf(row),
      'last-modified': row.lastModified.toUTCString(),
      allow: 'DELETE',
      Method: 'GET',
      ResourceType: 'DeleteMarker',
    });
  }

  /** The byte range of part `partNumber` of a version (the whole object is part 1 of a simple object). */
  async partRange(version: ObjectVersion, partNumber: number): Promise<ByteRange> {
    if (!version.partCount) {
      if (partNumber !== 1 || version.size === 0) throw this.invalidPartNumber(partNumber, 1);
      return { start: 0, endInclusive: version.size - 1 };
    }
    if (partNumber < 1 || partNumber > version.partCount) throw this.invalidPartNumber(partNumber, version.partCount);
    const blocks = await this.ms.versions.readBlocks(version.manifestId!);
    let start = 0;
    let length = 0;
    for (const b of blocks) {
      const p = b.partNumber ?? 1;
      if (p < partNumber) start += b.size;
      else if (p === partNumber) length += b.size;
    }
    if (length === 0) throw this.invalidPartNumber(partNumber, version.partCount);
    return { start, endInclusive: start + length - 1 };
  }

  async partSizes(version: ObjectVersion): Promise<{ partNumber: number; size: number }[]> {
    if (!version.partCount || !version.manifestId) return [];
    const sizes = new Map<number, number>();
    for (const b of await this.ms.versions.readBlocks(version.manifestId))
      sizes.set(b.partNumber ?? 1, (sizes.get(b.partNumber ?? 1) ?? 0) + b.size);
    return [...sizes.entries()].sort((a, b) => a[0] - b[0]).map(([partNumber, size]) => ({ partNumber, size }));
  }

  private invalidPartNumber(partNumber: number, count: number) {
    return s3err('InvalidPartNumber', 'The requested partnumber is not satisfiable', {
      PartNumberRequested: String(partNumber),
      ActualPartCount: String(count),
    });
  }

  async openBody(version: ObjectVersion, range?: ByteRange, partNumber?: number): Promise<Readable> {
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
    if (version.inlineBody) return inlineStream(version.inlineBody, range);
    const blocks = await this.ms.versions.readBlocks(version.manifestId);
    if (blocks.length === 0 && version.size > 0) {
      // a version `head` did not fill in: a non-empty body without blocks is stored inline, in the
      // version row or (when larger) in its metadata row
      const { bucketId } = await this.buckets.resolve(version.bucket);
      const { parent, name } = splitKey(version.key);
      const vid = version.manifestId;
      const row = await this.ms.versions.get({ bucketId, parent, name, vts: vtsOfVid(uuidBytes(vid)), vid }, { body: true });
      const inline = row?.inlineBody ?? (await this.ms.versions.readMeta(vid, { inlineBody: true }))?.inlineBody;
      if (inline) return inlineStream(inline, range);
    }
    return this.store.blocks.openRead(blockRefs(blocks), range);
  }

  /**
   * DeleteObject. Without a version id: Enabled -> a new delete marker; Suspended -> a null delete
   * marker replacing the null version; Unversioned -> a ghost (invisible null marker with a TTL)
   * replacing the null version, so that a slower concurrent PUT with an older vts stays deleted.
   * With a version id: the version is removed for good and the index repaired if it was current.
   * Deleting what does not exist succeeds, as in S3.
   */
  async delete(bucketName: string, key: string, owner: Owner, versionId?: string): Promise<DeleteResult> {
    const bucket = await this.buckets.resolve(bucketName);
    if (versionId !== undefined) return this.deleteVersion(bucket, key, versionId);
    if (bucket.versioning === 'Enabled') {
      const row = await this.store.commit({ bucket, key, kind: 'marker', isNull: false, owner });
      return { versionId: this.store.versionIdOf(row), deleteMarker: true };
    }
    if (bucket.versioning === 'Suspended') {
      await this.store.commit({ bucket, key, kind: 'marker', isNull: true, owner });
      return { versionId: NULL_VERSION_ID, deleteMarker: true };
    }
    const newest = await this.store.newest(bucket.bucketId, key);
    if (newest && !newest.isGhost) await this.store.commit({ bucket, key, kind: 'ghost', isNull: true, owner });
    return { deleteMarker: false };
  }

  private async deleteVersion(bucket: BucketRow, key: string, versionId: string): Promise<DeleteResult> {
    const { parent, name } = splitKey(key);
    const bucketId = bucket.bucketId;
    let targets: { vts: number; vid: string; isNull: boolean }[];
    if (versionId === NULL_VERSION_ID) {
      targets = (await this.ms.versions.nullRows(bucketId, parent, name)).map((l) => ({ ...l, isNull: true }));
    } else {
      const vid = decodeId(versionId);
      if (!vid) throw invalidVersionId(versionId);
      targets = [{ vts: vtsOfVid(uuidBytes(vid)), vid, isNull: false }];
    }
    const [newest] = await this.ms.versions.newest(bucketId, parent, name, 1);
    let wasMarker = false;
    let removedCurrent = false;
    let floor = 0;
    for (const t of targets) {
      const loc = { bucketId, parent, name, vts: t.vts, vid: t.vid };
      if (!t.isNull) {
        const row = await this.ms.versions.get(loc);
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
    bucket: string;
    key: string;
    owner: Owner;
    metadataDirective: 'COPY' | 'REPLACE';
    meta: ObjectMeta;
    taggingDirective?: 'COPY' | 'REPLACE';
  }): Promise<PutObjectResult & { lastModified: Date; sourceVersionId: string }> {
    const dst = await this.buckets.resolve(input.bucket);
    this.validateKey(input.key);
    const srcBucket = input.source.bucket === input.bucket ? dst : await this.buckets.resolve(input.source.bucket);
    if (
      input.source.bucket === input.bucket &&
      input.source.key === input.key &&
      input.metadataDirective !== 'REPLACE' &&
      input.meta.storageClass === undefined
    ) {
      throw s3err(
        'InvalidRequest',
        "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
      );
    }
    for (let attempt = 0; ; attempt++) {
      const src = await this.copySource(srcBucket, input.source);
      const [meta, blocks] = await Promise.all([this.metaOf(src), this.ms.versions.readBlocks(src.vid)]);
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
      };
      validateObjectTags(newMeta.tags);
      try {
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
        this.store.recordUsage(dst, 'copy', src.size);
        return {
          versionId: this.store.versionIdOf(row),
          etag: row.etag,
          size: row.size,
          checksums: meta.checksums,
          lastModified: row.lastModified,
          sourceVersionId: this.store.versionIdOf(src),
        };
      } catch (e) {
        // the source lost its last reference while we were sharing its blocks: look again
        if (e instanceof BlockUnavailableError && attempt < 2) continue;
        if (e instanceof BlockUnavailableError) throw noSuchKey(input.source.key);
        throw e;
      }
    }
  }

  private async copySource(bucket: BucketRow, source: CopySource): Promise<VersionRow> {
    if (source.versionId !== undefined) {
      const row = await this.store.findVersion(bucket.bucketId, source.key, source.versionId, { body: true });
      if (!row) throw noSuchVersion(source.key, source.versionId);
      if (row.isDeleteMarker)
        throw s3err(
          'InvalidRequest',
          'The source of a copy request may not specifically refer to a delete marker by version id.',
        );
      return row;
    }
    const row = await this.store.newest(bucket.bucketId, source.key, { body: true });
    if (!row || row.isDeleteMarker) throw noSuchKey(source.key);
    return row;
  }

  async list(input: ListObjectsInput): Promise<ListObjectsResult> {
    const bucket = await this.buckets.resolve(input.bucket);
    const walker = new TreeWalker<IndexRow>(objectsSource(this.ms, bucket.bucketId), {
      prefix: input.prefix,
      delimiter: input.delimiter,
      after: input.after,
      pageSize: listPageSize(input.maxKeys),
    });
    const { events, isTruncated } = await takePage(walker, input.maxKeys);
    const contents: ObjectVersion[] = [];
    const commonPrefixes: string[] = [];
    for (const e of events) {
      if (e.kind === 'prefix') commonPrefixes.push(e.prefix);
      else {
        const r = e.row;
        contents.push({
          bucket: input.bucket,
          key: e.key,
          versionId: this.store.versionIdOf(r),
          isLatest: true,
          isDeleteMarker: false,
          size: r.size,
          etag: r.etag,
          lastModified: r.lastModified,
          storageClass: r.storageClass,
          owner: { id: r.ownerId, displayName: r.ownerName },
          meta: { userMeta: {} },
          checksums: {},
          partCount: r.partCount,
          manifestId: r.vid,
        });
      }
    }
    const last = events[events.length - 1];
    return {
      contents,
      commonPrefixes,
      isTruncated,
      nextAfter: last ? (last.kind === 'row' ? last.key : last.prefix) : undefined,
    };
  }

  async listVersions(input: ListVersionsInput): Promise<ListVersionsResult> {
    const bucket = await this.buckets.resolve(input.bucket);
    if (input.versionIdMarker && !input.keyMarker)
      throw s3err('InvalidArgument', 'A version-id marker cannot be specified without a key marker.', {
        ArgumentName: 'version-id-marker',
        ArgumentValue: input.versionIdMarker,
      });
    let resumeAfter: VersionRow | undefined;
    if (input.keyMarker !== undefined && input.versionIdMarker) {
      const { parent, name } = splitKey(input.keyMarker);
      if (input.versionIdMarker === NULL_VERSION_ID) {
        const [loc] = await this.ms.versions.nullRows(bucket.bucketId, parent, name);
        if (loc) resumeAfter = { ...loc } as VersionRow;
      } else {
        const vid = decodeId(input.versionIdMarker);
        if (!vid) throw invalidVersionId(input.versionIdMarker);
        resumeAfter = { bucketId: bucket.bucketId, parent, name, vts: vtsOfVid(uuidBytes(vid)), vid } as VersionRow;
      }
    }
    const latest = new Set<VersionRow>();
    const walker = new TreeWalker<VersionRow>(versionsSource(this.ms, bucket.bucketId), {
      prefix: input.prefix,
      delimiter: input.delimiter,
      after: input.keyMarker || undefined,
      resumeAfter,
      pageSize: listPageSize(input.maxKeys),
      keyFilter: versionKeyFilter(this.ms, bucket.bucketId, latest),
    });
    const { events, isTruncated } = await takePage(walker, input.maxKeys);
    const versions: ObjectVersion[] = [];
    const commonPrefixes: string[] = [];
    for (const e of events) {
      if (e.kind === 'prefix') commonPrefixes.push(e.prefix);
      else versions.push(this.store.toObjectVersion(input.bucket, e.key, e.row, latest.has(e.row)));
    }
    const last = events[events.length - 1];
    const result: ListVersionsResult = { versions, commonPrefixes, isTruncated };
    if (isTruncated && last) {
      if (last.kind === 'prefix') result.nextKeyMarker = last.prefix;
      else {
        result.nextKeyMarker = last.key;
        result.nextVersionIdMarker = this.store.versionIdOf(last.row);
      }
    }
    return result;
  }

  /** The version a tagging/ACL call addresses: current (NoSuchKey) or by id (NoSuchVersion). */
  private async target(bucket: BucketRow, key: string, versionId?: string): Promise<VersionRow> {
    if (versionId !== undefined) {
      const row = await this.store.findVersion(bucket.bucketId, key, versionId);
      if (!row) throw noSuchVersion(key, versionId);
      if (row.isDeleteMarker) throw this.methodNotAllowedOnMarker(row);
      return row;
    }
    const row = await this.store.newest(bucket.bucketId, key);
    if (!row || row.isDeleteMarker) throw noSuchKey(key);
    return row;
  }

  async getTags(bucketName: string, key: string, versionId?: string) {
    const row = await this.target(await this.buckets.resolve(bucketName), key, versionId);
    const meta = await this.ms.versions.readMeta(row.vid);
    if (!meta) throw versionId ? noSuchVersion(key, versionId) : noSuchKey(key);
    return { versionId: this.store.versionIdOf(row), tags: meta.tags };
  }

  async setTags(bucketName: string, key: string, tags: Record<string, string>, versionId?: string) {
    validateObjectTags(tags);
    return this.updateMeta(bucketName, key, versionId, { tags });
  }

  async deleteTags(bucketName: string, key: string, versionId?: string) {
    return this.updateMeta(bucketName, key, versionId, { tags: {} });
  }

  async setAcl(bucketName: string, key: string, acl: CannedAcl, versionId?: string): Promise<void> {
    await this.updateMeta(bucketName, key, versionId, { acl });
  }

  private async updateMeta(
    bucketName: string,
    key: string,
    versionId: string | undefined,
    change: { tags?: Record<string, string>; acl?: string },
  ): Promise<{ versionId: string }> {
    const row = await this.target(await this.buckets.resolve(bucketName), key, versionId);
    // the row's snapshot goes first: whatever happens next, no reader sees the old tags or ACL
    // once this call has answered
    await this.ms.versions.dropSnapshot(row, this.store.nowMicros());
    if (!(await this.ms.versions.updateMeta(row.vid, change)))
      throw versionId ? noSuchVersion(key, versionId) : noSuchKey(key);
    return { versionId: this.store.versionIdOf(row) };
  }
}
