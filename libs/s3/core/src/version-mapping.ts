import type { BlockRef } from '@ostore/storage/blocks';
import type { BlockEntry, IndexEntry, VersionMetaRow, VersionRow } from '@ostore/metastore/data-access';
import type { ChecksumAlgorithm, ObjectMeta, ObjectVersion } from './api';
import { splitKey } from './keys';
import { publicVersionIdOf } from './version-ids';

/** The block reference a committed version holds on each of its blocks. */
export const versionRef = (vid: string) => `v:${vid}`;

/** The block references of manifest entries. */
export function blockRefs(blocks: BlockEntry[]): BlockRef[] {
  return blocks.map(blockRefOf);
}

/** The block store's view of one manifest entry. */
export function blockRefOf(b: BlockEntry): BlockRef {
  return { blockId: b.blockId, size: b.size, tier: b.tier };
}

/** The S3 version id of a row: 'null' for a null version, else the encoded vid. */

/** The headers stored with a version, as the API shows them. */
export function objectMetaOf(m: VersionMetaRow | undefined, storageClass: string): ObjectMeta {
  if (!m) return { userMeta: {}, storageClass };
  return {
    contentType: m.contentType,
    contentEncoding: m.contentEncoding,
    contentLanguage: m.contentLanguage,
    contentDisposition: m.contentDisposition,
    cacheControl: m.cacheControl,
    expires: m.expires,
    userMeta: m.userMeta,
    storageClass,
    acl: (m.acl as ObjectMeta['acl']) ?? 'private',
    tags: m.tags,
    ...(m.sse ? { sse: m.sse } : {}),
  };
}

/** The `objects` index entry naming a version row. */
export function indexEntryOf(row: VersionRow): IndexEntry {
  return {
    vid: row.vid,
    vts: row.vts,
    isNull: row.isNull,
    size: row.size,
    etag: row.etag,
    lastModified: row.lastModified,
    storageClass: row.storageClass,
    ownerId: row.ownerId,
    ownerName: row.ownerName,
    partCount: row.partCount,
  };
}

/** The `version_meta` row of a new version. */
export function metaRowOf(
  vid: string,
  vts: number,
  bucketId: string,
  key: string,
  meta: ObjectMeta,
  checksums: Partial<Record<ChecksumAlgorithm, string>>,
  inlineBody?: Buffer,
): VersionMetaRow {
  const { parent, name } = splitKey(key);
  return {
    vid,
    bucketId,
    parent,
    name,
    vts,
    contentType: meta.contentType,
    contentEncoding: meta.contentEncoding,
    contentLanguage: meta.contentLanguage,
    contentDisposition: meta.contentDisposition,
    cacheControl: meta.cacheControl,
    expires: meta.expires,
    userMeta: meta.userMeta ?? {},
    tags: meta.tags ?? {},
    acl: meta.acl,
    checksums: checksums as Record<string, string>,
    ...(meta.sse ? { sse: meta.sse } : {}),
    ...(inlineBody ? { inlineBody } : {}),
  };
}

/** A version row (with its metadata, when read) as the API shows it. */
export function toObjectVersion(bucket: string, key: string, row: VersionRow, isLatest: boolean, meta?: VersionMetaRow): ObjectVersion {
  return {
    bucket,
    key,
    versionId: publicVersionIdOf(row),
    isLatest,
    isDeleteMarker: row.isDeleteMarker,
    size: row.size,
    etag: row.etag,
    lastModified: row.lastModified,
    storageClass: row.storageClass,
    owner: { id: row.ownerId, displayName: row.ownerName },
    meta: objectMetaOf(meta, row.storageClass),
    checksums: (meta?.checksums ?? {}) as ObjectVersion['checksums'],
    partCount: row.partCount,
    manifestId: row.vid,
    ...(row.inlineBody || meta?.inlineBody ? { inlineBody: row.inlineBody ?? meta?.inlineBody } : {}),
  };
}

/** What a new version row is made of (VersionStore's CommitSpec carries it, PartitionDeletes too). */
export interface NewRowSpec {
  bucket: { bucketId: string };
  key: string;
  kind: 'object' | 'marker' | 'ghost';
  isNull: boolean;
  owner: { id: string; displayName: string };
  size?: number;
  etag?: string;
  storageClass?: string;
  partCount?: number;
}

/** The `versions` row a commit of `spec` writes at (vts, vid). */
export function newVersionRow(spec: NewRowSpec, ids: { vts: number; vid: string }): VersionRow {
  const { parent, name } = splitKey(spec.key);
  return {
    bucketId: spec.bucket.bucketId,
    parent,
    name,
    vts: ids.vts,
    vid: ids.vid,
    isNull: spec.isNull,
    isDeleteMarker: spec.kind !== 'object',
    isGhost: spec.kind === 'ghost',
    size: spec.kind === 'object' ? (spec.size ?? 0) : 0,
    etag: spec.kind === 'object' ? (spec.etag ?? '') : '',
    lastModified: new Date(Math.floor(ids.vts / 1000)),
    storageClass: spec.storageClass ?? 'STANDARD',
    ownerId: spec.owner.id,
    ownerName: spec.owner.displayName,
    partCount: spec.partCount,
  };
}
