import type { VersionRow } from '@ostore/metastore/data-access';
import { SCANNER_KEPT_VERSIONS } from '@ostore/lifecycle/rules';
import { GroupBuilder } from './key-grouper';

/** A `versions` row with the token of its partition. */
export type ScannedVersionRow = VersionRow & { token: bigint };

/**
 * One object as the scan saw it: its current version and at most `SCANNER_KEPT_VERSIONS` newest
 * noncurrent versions that ListObjectVersions would show.
 */
export interface ScannedObject {
  readonly token: bigint;
  readonly bucketId: string;
  readonly parent: string;
  readonly name: string;
  /** The current version (possibly a delete marker); absent when the object's newest row is a ghost. */
  readonly current?: VersionRow;
  /** Visible noncurrent versions and delete markers, newest first. */
  readonly noncurrent: readonly VersionRow[];
  /** False when visible versions beyond the window were left out. */
  readonly keptAll: boolean;
  /** Rows read for this object, invisible ones included. */
  readonly rows: number;
  /**
   * Null rows read below the object's newest null row: replaced or deleted null versions that a
   * writer failed (or died before it came) to converge away. Invisible to readers, but each
   * keeps its data and, once the ghost above it expires, would be the null version again.
   */
  readonly staleNulls: number;
  /**
   * Visible versions past the window that were read (the rest of the page), newest first, and where
   * the object's read stopped: kept only by a builder asked to (snapshots count every version and
   * read the rest of a long history with one query of that key, see VersionTail).
   */
  readonly beyond?: { readonly rows: readonly VersionRow[]; readonly last: VersionRow; readonly seenNull: boolean };
}

/**
 * Builds a ScannedObject from an object's rows in clustering order (newest first), applying the S3
 * core's visibility rules (libs/s3/core version-store.ts, listing/version-filter.ts):
 *
 * - the object's newest row is its current version — unless it is a ghost (the invisible null
 *   delete marker an unversioned bucket's DELETE writes with a TTL), in which case the object has
 *   no current version at all;
 * - every non-null row is a visible version; of the null rows only the NEWEST is, and only if it
 *   is not a ghost (older null rows exist only while racing null writers converge);
 * - the window is the current version plus the newest `keep` (100) visible noncurrent versions
 *   (`keptAll` false when more exist), as the contracts expect (at most 101 versions per
 *   candidate) and the window NewerNoncurrentVersions is counted in. Versions are clustered newest
 *   first, so the current version is always the first row read of an object: positions and skips
 *   fall between objects, never inside one. It is kept apart from the window and flagged only by
 *   `isLatest` later, so the last version of a full window is never taken for the current one.
 *
 * Hidden rows are counted in `rows` but never kept; stale null rows are counted in `staleNulls`
 * as well (the scan task asks the scheduler to converge them). Ghost and tombstoned rows are not
 * the scanner's to clean: ghosts expire by TTL, and the scheduler deletes rows.
 */
export class VersionGroupBuilder implements GroupBuilder<ScannedVersionRow, ScannedObject> {
  private rows = 0;
  private seenNull = false;
  private staleNulls = 0;
  private current?: VersionRow;
  private readonly kept: VersionRow[] = [];
  private readonly beyond: VersionRow[] = [];
  private last?: VersionRow;
  private overflow = false;

  constructor(
    private readonly first: ScannedVersionRow,
    private readonly keep = SCANNER_KEPT_VERSIONS,
    private readonly keepBeyond = false,
  ) {}

  get capped(): boolean {
    return this.overflow;
  }

  add(row: ScannedVersionRow): void {
    this.rows++;
    this.last = row;
    if (this.rows === 1) {
      if (row.isNull) this.seenNull = true;
      if (!row.isGhost) this.current = row;
      return;
    }
    let visible = true;
    if (row.isNull) {
      if (this.seenNull) this.staleNulls++;
      visible = !this.seenNull && !row.isGhost;
      this.seenNull = true;
    }
    if (!visible) return;
    if (this.kept.length < this.keep) this.kept.push(row);
    else {
      this.overflow = true;
      if (this.keepBeyond) this.beyond.push(row);
    }
  }

  build(): ScannedObject {
    return {
      token: this.first.token,
      bucketId: this.first.bucketId,
      parent: this.first.parent,
      name: this.first.name,
      current: this.current,
      noncurrent: this.kept,
      keptAll: !this.overflow,
      rows: this.rows,
      staleNulls: this.staleNulls,
      ...(this.keepBeyond && this.overflow ? { beyond: { rows: this.beyond, last: this.last!, seenNull: this.seenNull } } : {}),
    };
  }
}

/** An `uploads` row as the scan reads it. */
export interface ScannedUploadRow {
  readonly token: bigint;
  readonly bucketId: string;
  readonly parent: string;
  readonly name: string;
  /** Time-based uuid. */
  readonly uploadId: string;
  readonly initiated: Date;
  /** Completed uploads are kept (with a TTL) only to answer retried completions: never candidates. */
  readonly completed: boolean;
}

/** The incomplete multipart uploads of one key, oldest first. */
export interface ScannedUploads {
  readonly token: bigint;
  readonly bucketId: string;
  readonly parent: string;
  readonly name: string;
  readonly uploads: readonly ScannedUploadRow[];
  readonly keptAll: boolean;
  readonly rows: number;
}

/** Most uploads of one key the scan looks at in one pass (upload ids ascend: the oldest first). */
export const SCANNER_KEPT_UPLOADS = 1000;

export class UploadGroupBuilder implements GroupBuilder<ScannedUploadRow, ScannedUploads> {
  private rows = 0;
  private readonly kept: ScannedUploadRow[] = [];
  private overflow = false;

  constructor(
    private readonly first: ScannedUploadRow,
    private readonly keep = SCANNER_KEPT_UPLOADS,
  ) {}

  get capped(): boolean {
    return this.overflow;
  }

  add(row: ScannedUploadRow): void {
    this.rows++;
    if (row.completed) return;
    if (this.kept.length < this.keep) this.kept.push(row);
    else this.overflow = true;
  }

  build(): ScannedUploads {
    return {
      token: this.first.token,
      bucketId: this.first.bucketId,
      parent: this.first.parent,
      name: this.first.name,
      uploads: this.kept,
      keptAll: !this.overflow,
      rows: this.rows,
    };
  }
}
