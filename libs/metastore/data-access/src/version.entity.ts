/**
 * The rows of `versions` and `version_meta` as the repositories hand them out: plain types with no
 * behaviour, so that the repository, the row mapper and the snapshot codec all depend on this file
 * and never on each other.
 */

/** One row of `versions`: a version, a delete marker, or a ghost (invisible null marker). */
export interface VersionRow {
  bucketId: string;
  parent: string;
  name: string;
  /** Version timestamp, microseconds: orders the versions of a key, newest first. */
  vts: number;
  /** Time-based uuid (time = vts) naming the version's manifest and block references. */
  vid: string;
  isNull: boolean;
  isDeleteMarker: boolean;
  /** A null delete marker of an unversioned bucket: never listed, expires by TTL. */
  isGhost: boolean;
  size: number;
  etag: string;
  lastModified: Date;
  storageClass: string;
  ownerId: string;
  ownerName: string;
  partCount?: number;
  /**
   * The version's metadata from the row's own snapshot (migration 006), when the read asked for it
   * and the row still has one; else read `version_meta`.
   */
  snapshot?: VersionMetaRow;
  /**
   * The whole body of a small inline object, stored in the row itself (migration 006; bodies over
   * the row threshold are in `version_meta.inline_body`). Read only when asked for (`body`).
   */
  inlineBody?: Buffer;
}

/** Reads that also want what GET needs from the row: its metadata snapshot and a body stored in it. */
export interface RowReadOptions {
  body?: boolean;
}

/** What the row of a new version carries besides its columns (migration 006). */
export interface RowExtras {
  /** The metadata the commit writes to `version_meta`, kept in the row as its snapshot (meta-snapshot.ts). */
  meta?: VersionMetaRow;
  inlineBody?: Buffer;
}

/** Where a version row is: its full primary key. */
export interface VersionLocator {
  bucketId: string;
  parent: string;
  name: string;
  vts: number;
  vid: string;
}

/**
 * A null row found through its `null_versions` mirror, with what removing it needs (migration 013);
 * `summary` is absent for a mirror written before that migration.
 */
export interface NullRowRef extends VersionLocator {
  summary?: { size: number; isDeleteMarker: boolean; isGhost: boolean; bodyInRow: boolean };
}

/** One block of a version's manifest (`version_blocks`), in body order. */
export interface BlockEntry {
  blockId: string;
  tier: string;
  size: number;
  /** For multipart objects: the part the block belongs to (1-based). */
  partNumber?: number;
  /**
   * On the first block of each part of a multipart object whose upload had a checksum algorithm:
   * that part's checksum (base64, migration 023), for GetObject partNumber and GetObjectAttributes.
   */
  partChecksum?: string;
}

/** A version's metadata (`version_meta`, or the row's snapshot of it). */
export interface VersionMetaRow {
  vid: string;
  bucketId: string;
  parent: string;
  name: string;
  vts: number;
  contentType?: string;
  contentEncoding?: string;
  contentLanguage?: string;
  contentDisposition?: string;
  cacheControl?: string;
  expires?: string;
  userMeta: Record<string, string>;
  tags: Record<string, string>;
  acl?: string;
  checksums: Record<string, string>;
  /** How the body is encrypted (the stored record of @ostore/s3/crypto, migration 016); undefined: plain. */
  sse?: string;
  /**
   * The whole body of a small object stored inline (migration 005): such a version has no blocks,
   * no block references and nothing in the block store. Undefined for block-stored bodies (and
   * when the reader did not ask for it).
   */
  inlineBody?: Buffer;
}
