import type { IndexRow, VersionRow } from '@ostore/metastore/data-access';
import type { ListObjectsInput, ListObjectsResult, ListVersionsInput, ListVersionsResult, ObjectVersion } from './api';
import { invalidVersionId, s3err } from './errors';
import { groupEndMarker } from './listing/group-end-marker';
import { takePage, TreeWalker } from './listing/tree-walker';
import { decodeId, NULL_VERSION_ID, publicVersionIdOf } from './version-ids';
import type { BucketKey } from './version-data';
import { toObjectVersion } from './version-mapping';
import type { VersionStore } from './version-store';

/** Listing page sizes: a little more than asked (a page may skip hidden rows), at most 1000. */
export const listPageSize = (maxKeys: number) => Math.max(10, Math.min(maxKeys + 1, 1000));

/** ListObjects (v1 and v2) over the `objects` index of a bucket. */
export async function listObjects(store: VersionStore, bucket: BucketKey, input: ListObjectsInput): Promise<ListObjectsResult> {
  const walker = new TreeWalker<IndexRow>(store.objectsTree(bucket.bucketId), {
    prefix: input.prefix,
    delimiter: input.delimiter,
    after: input.after,
    afterGroup: input.afterGroup,
    resumableCut: true, // v2 resumes from its token, v1 from the NextMarker it is then given
    levelBudget: store.limits.listingLevelBudget,
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
        bucket: bucket.name,
        key: e.key,
        versionId: publicVersionIdOf(r),
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
  const cut = walker.cut;
  if (cut !== undefined && !input.resumable)
    return { contents, commonPrefixes, isTruncated, nextAfter: groupEndMarker(cut, store.limits.maxKeyBytes), nextMarkerNeeded: true };
  return {
    contents,
    commonPrefixes,
    isTruncated,
    nextAfter: cut ?? (last ? (last.kind === 'row' ? last.key : last.prefix) : undefined),
    nextAfterGroup: cut !== undefined ? true : undefined,
  };
}

/** ListObjectVersions over the `versions` table of a bucket (see versionKeyFilter for what it shows). */
export async function listVersions(store: VersionStore, bucket: BucketKey, input: ListVersionsInput): Promise<ListVersionsResult> {
  if (input.versionIdMarker && !input.keyMarker)
    throw s3err('InvalidArgument', 'A version-id marker cannot be specified without a key marker.', {
      ArgumentName: 'version-id-marker',
      ArgumentValue: input.versionIdMarker,
    });
  let resumeAfter: VersionRow | undefined;
  if (input.keyMarker !== undefined && input.versionIdMarker) {
    if (input.versionIdMarker === NULL_VERSION_ID) {
      const [loc] = await store.nullRows(bucket.bucketId, input.keyMarker);
      if (loc) resumeAfter = { ...loc } as VersionRow;
    } else {
      const vid = decodeId(input.versionIdMarker);
      if (!vid) throw invalidVersionId(input.versionIdMarker);
      resumeAfter = store.locatorOf(bucket.bucketId, input.keyMarker, vid) as VersionRow;
    }
  }
  const latest = new Set<VersionRow>();
  const tree = store.versionsTree(bucket.bucketId, latest);
  const walker = new TreeWalker<VersionRow>(tree.source, {
    prefix: input.prefix,
    delimiter: input.delimiter,
    after: input.keyMarker || undefined,
    resumeAfter,
    levelBudget: store.limits.listingLevelBudget,
    resumableCut: true, // a page cut at the budget continues from a NextKeyMarker past the cut directory
    pageSize: listPageSize(input.maxKeys),
    keyFilter: tree.keyFilter,
  });
  const { events, isTruncated } = await takePage(walker, input.maxKeys);
  const versions: ObjectVersion[] = [];
  const commonPrefixes: string[] = [];
  for (const e of events) {
    if (e.kind === 'prefix') commonPrefixes.push(e.prefix);
    else versions.push(toObjectVersion(bucket.name, e.key, e.row, latest.has(e.row)));
  }
  const last = events[events.length - 1];
  const result: ListVersionsResult = { versions, commonPrefixes, isTruncated };
  if (walker.cut !== undefined) result.nextKeyMarker = groupEndMarker(walker.cut, store.limits.maxKeyBytes);
  else if (isTruncated && last) {
    if (last.kind === 'prefix') result.nextKeyMarker = last.prefix;
    else {
      result.nextKeyMarker = last.key;
      result.nextVersionIdMarker = publicVersionIdOf(last.row);
    }
  }
  return result;
}
