import type { BlockEntry, BucketRow, UploadRow, VersionRow } from '@ostore/metastore/data-access';

/** What the applier read of one key before deciding. */
export interface KeyRead {
  /**
   * The raw `objects.entry` cell (null: no current object), read before the rows. The claim
   * compares against exactly this value, so a decision is only acted on while the key's current
   * version is still the one it was based on.
   */
  indexRaw: string | null;
  /** The key's newest rows (objects, markers, ghosts, stale null rows), newest first. */
  rows: VersionRow[];
  /** False when the key has more rows than were read. */
  complete: boolean;
}

export type ClaimOutcome =
  /** The key is ours until `release` (or the claim's TTL). */
  | 'claimed'
  /** The index entry is no longer the one read: read again and decide again. */
  | 'changed'
  /** Another claimant (a conditional PUT, another scheduler) holds the key. */
  | 'busy';

/** The copy of a version's blocks to a colder tier, made before the key is claimed. */
export interface PreparedTransition {
  readonly vid: string;
  /** The manifest as read before copying. */
  readonly old: BlockEntry[];
  /** The manifest to swap in (old entries already in the tier are kept). */
  readonly next: BlockEntry[];
  /** Blocks written by the copy (in flight until committed). */
  readonly written: BlockEntry[];
}

export type TransitionOutcome = 'applied' | 'gone' | 'changed';
export type AbortOutcome = 'aborted' | 'gone' | 'completing';

/**
 * The metastore and block operations lifecycle application is made of — the port between the
 * LifecycleApplier's decisions (unit-tested over an in-memory fake) and Cassandra (the S3 core's
 * VersionStore, metastore repositories and BlockManager; integration-tested).
 */
export interface LifecycleStore {
  resolveBucket(name: string): Promise<BucketRow | undefined>;
  /** The index entry, then the key's newest `limit` rows (QUORUM; see CassandraLifecycleStore). */
  readKey(bucket: BucketRow, key: string, limit: number): Promise<KeyRead>;
  /** One version row by vid, or the newest null row for 'null' (a target beyond the rows read). */
  readVersion(bucket: BucketRow, key: string, vid: string): Promise<VersionRow | undefined>;
  /** Object tags per vid (only asked when some rule filters on tags). */
  readTags(vids: string[]): Promise<Map<string, Record<string, string>>>;
  claim(bucket: BucketRow, key: string, expectedRaw: string | null, token: string, ttlSeconds: number): Promise<ClaimOutcome>;
  release(bucket: BucketRow, key: string, token: string): Promise<void>;
  /** A fresh (vts, vid) for a delete marker or ghost. */
  newMarkerId(): { vts: number; vid: string };
  /** Commits a delete marker (or ghost) with the given vid, without converging null rows. */
  commitMarker(
    bucket: BucketRow,
    key: string,
    marker: { vid: string; kind: 'marker' | 'ghost'; isNull: boolean },
  ): Promise<VersionRow>;
  /** The key's newest `limit` rows (markers and ghosts included), newest first. */
  newestRows(bucket: BucketRow, key: string, limit: number): Promise<VersionRow[]>;
  /** The rows of the key just older than `row`, newest first. */
  rowsBelow(bucket: BucketRow, key: string, row: VersionRow, limit: number): Promise<VersionRow[]>;
  /** Permanent delete of one row: the row, then its block references and manifest (usage recorded). */
  removeVersion(bucket: BucketRow, row: VersionRow): Promise<void>;
  /**
   * Removes every null row of the key but the newest; `own`, the null row the caller just wrote,
   * counts as the newest even when the read no longer finds it (see staleNullRows). Resolves to
   * the number of rows it found stale (removed now, or by a racing converger).
   */
  convergeNulls(bucket: BucketRow, key: string, own?: VersionRow): Promise<number>;
  /** Makes the index agree with the newest version (writing above `floor`). */
  reconcileIndex(bucket: BucketRow, key: string, floor: number): Promise<void>;
  /** After `removed` was deleted: repairs the index if it still names it. */
  repairIndexAfterRemoval(bucket: BucketRow, key: string, removed: VersionRow): Promise<void>;
  /** Copies the version's blocks not yet in `tier` there (in flight, unreferenced). */
  prepareTransition(row: VersionRow, tier: string): Promise<PreparedTransition>;
  /** References the copy, swaps the manifest and the storage class, releases the old blocks. */
  commitTransition(bucket: BucketRow, key: string, row: VersionRow, prepared: PreparedTransition, storageClass: string): Promise<TransitionOutcome>;
  /** Abandons a copy that will not be committed. */
  discardTransition(prepared: PreparedTransition): Promise<void>;
  readUpload(bucket: BucketRow, key: string, uploadVid: string): Promise<UploadRow | undefined>;
  /** AbortMultipartUpload, exactly (parts and their blocks released; refuses an upload being completed). */
  abortUpload(bucket: BucketRow, key: string, uploadVid: string): Promise<AbortOutcome>;
  /** Part rows left by an abort that died midway (the upload row is gone): released and removed. */
  dropLeftoverParts(bucket: BucketRow, uploadVid: string): Promise<number>;
}
