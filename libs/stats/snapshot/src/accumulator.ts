import {
  BucketTally,
  RankedBlock,
  CUT_GRID_MS,
  emptyTally,
  HostSnapshot,
  HUGE_DIRECTORY,
  MANY_VERSIONS,
} from './snapshot';
import { offerTop } from './top-k';

/** The parts of a version row a snapshot needs (a metastore `VersionRow` fits). */
export interface SnapshotVersion {
  /** Version timestamp, microseconds. */
  readonly vts: number;
  readonly size: number;
  readonly storageClass: string;
  readonly isDeleteMarker: boolean;
}

/** One object as the scan read it: every visible version, newest first. */
export interface SnapshotObject {
  readonly bucketId: string;
  readonly bucket?: string;
  readonly parent: string;
  readonly name: string;
  /** The current version (absent when the newest row is an invisible ghost). */
  readonly current?: SnapshotVersion;
  /** Every visible noncurrent version and delete marker. */
  readonly noncurrent: readonly SnapshotVersion[];
  /** Versions of it whose lifecycle action is overdue (0 when not judged). */
  readonly overdue?: number;
}

/** The incomplete multipart uploads of one key and their parts. */
export interface SnapshotUploads {
  readonly bucketId: string;
  readonly bucket?: string;
  /** Incomplete uploads begun before the cut. */
  readonly uploads: number;
  /** Their part rows: size and when the part was stored (ms). */
  readonly parts: readonly { readonly size: number; readonly atMs: number }[];
}

/** One block as a scan of its `block_refs` partition read it: every reference, in one group. */
export interface SnapshotBlock {
  readonly blockId: string;
  readonly size: number;
  /** Every reference of the block (the partition's rows). */
  readonly refs: number;
  /** References traced to a bucket, per bucket id (the rest are counted in `refs` only). */
  readonly buckets: Readonly<Record<string, number>>;
  /** Bucket names by id, where known. */
  readonly names?: Readonly<Record<string, string>>;
}

/** Most buckets a block names in its snapshot entry (the ones with the most references). */
export const BLOCK_BUCKETS_KEPT = 5;

/**
 * Counts objects into a HostSnapshot, in place (the snapshot is the pass's saved state). Objects
 * arrive in scan order, one directory partition's objects adjacent, so a directory's entries are
 * counted while it is open and ranked when the next one begins (or at `finish`); the open
 * directory is part of the saved state, so a resumed pass goes on counting it.
 *
 * Only what was written before the cut is counted (vts < cut): a pass reads rows over minutes or
 * an hour, and a version written after the cut is carried by the usage deltas after the cut
 * whether the pass read it or not (see README, "Snapshots").
 */
export class SnapshotAccumulator {
  private readonly cutMicros: number;
  private readonly lookbackFromMs: number;

  constructor(readonly snapshot: HostSnapshot) {
    this.cutMicros = snapshot.cutMs * 1000;
    this.lookbackFromMs = snapshot.cutMs - snapshot.lookbackMs;
  }

  /** Counts one object (every visible version of it). */
  addObject(o: SnapshotObject): void {
    const t = this.tally(o.bucketId, o.bucket);
    const key = o.parent + o.name;
    const all = o.current ? [o.current, ...o.noncurrent] : o.noncurrent;
    let bytes = 0;
    let versions = 0;
    for (const v of all) {
      if (v.vts >= this.cutMicros) {
        t.newer.versions++;
        t.newer.bytes += v.size;
        continue;
      }
      const isCurrent = v === o.current;
      const cls = (t.classes[v.storageClass] ??= { current: 0, noncurrent: 0 });
      if (isCurrent) cls.current += v.size;
      else cls.noncurrent += v.size;
      this.recentClass(t, v.vts / 1000, v.storageClass, isCurrent, v.size);
      t.bytes += v.size;
      bytes += v.size;
      if (v.isDeleteMarker) t.deleteMarkers++;
      else {
        t.versions++;
        versions++;
      }
      const live = isCurrent && !v.isDeleteMarker;
      if (live) t.objects++;
      this.recent(t, v.vts / 1000, v.size, live ? 1 : 0, v.isDeleteMarker ? 0 : 1);
    }
    if (o.current && !o.current.isDeleteMarker && o.current.vts < this.cutMicros) this.enterDirectory(o.bucketId, o.parent);
    offerTop(t.topBySize, { name: key, n: bytes });
    offerTop(t.topByVersions, { name: key, n: versions });
    if (all.length > MANY_VERSIONS) t.anomalies.objectsOver100Versions++;
    t.anomalies.overdueVersions += o.overdue ?? 0;
  }

  /** Counts the incomplete uploads of one key and their parts stored before the cut. */
  addUploads(u: SnapshotUploads): void {
    const t = this.tally(u.bucketId, u.bucket);
    t.uploads += u.uploads;
    for (const p of u.parts) {
      if (p.atMs >= this.snapshot.cutMs) continue;
      t.uploadBytes += p.size;
      t.bytes += p.size;
      this.recent(t, p.atMs, p.size, 0, 0);
    }
  }

  /**
   * Counts one block with all of its references: into the pass's totals, and offered to the top
   * list of every bucket that references it (ranked by ALL its references, so a block shared by
   * many buckets ranks the same in each). Call once per block partition: the scan's position only
   * ever falls between two blocks, so a resumed pass never offers a block twice.
   */
  addBlock(b: SnapshotBlock): void {
    if (b.refs <= 0) return;
    const totals = (this.snapshot.blocks ??= { blocks: 0, refs: 0, maxRefs: 0 });
    totals.blocks++;
    totals.refs += b.refs;
    totals.maxRefs = Math.max(totals.maxRefs, b.refs);
    const kept = Object.entries(b.buckets)
      .filter(([, n]) => n > 0)
      .sort(([a, x], [c, y]) => y - x || (a < c ? -1 : a > c ? 1 : 0));
    const entry: RankedBlock = { name: b.blockId, n: b.refs, size: b.size, buckets: Object.fromEntries(kept.slice(0, BLOCK_BUCKETS_KEPT)) };
    for (const [bucketId] of kept) offerTop((this.tally(bucketId, b.names?.[bucketId]).topBlocks ??= []), entry);
  }

  /** Ranks the directory still open: call once, when the pass has read everything. */
  finish(): HostSnapshot {
    this.closeDirectory();
    return this.snapshot;
  }

  private tally(bucketId: string, name?: string): BucketTally {
    const t = (this.snapshot.buckets[bucketId] ??= emptyTally(name));
    if (t.name === undefined && name !== undefined) t.name = name;
    return t;
  }

  private recent(t: BucketTally, atMs: number, bytes: number, objects: number, versions: number): void {
    if (atMs < this.lookbackFromMs) return;
    const w = String(Math.floor(atMs / CUT_GRID_MS) * CUT_GRID_MS);
    const sums = (t.recent[w] ??= [0, 0, 0]);
    sums[0] += bytes;
    sums[1] += objects;
    sums[2] += versions;
  }

  private recentClass(t: BucketTally, atMs: number, storageClass: string, current: boolean, bytes: number): void {
    if (atMs < this.lookbackFromMs) return;
    const w = String(Math.floor(atMs / CUT_GRID_MS) * CUT_GRID_MS);
    const byClass = ((t.recentClasses ??= {})[w] ??= {});
    (byClass[storageClass] ??= [0, 0])[current ? 0 : 1] += bytes;
  }

  private enterDirectory(bucketId: string, parent: string): void {
    const open = this.snapshot.openDir;
    if (open && open.bucketId === bucketId && open.parent === parent) {
      open.entries++;
      return;
    }
    this.closeDirectory();
    this.snapshot.openDir = { bucketId, parent, entries: 1 };
  }

  private closeDirectory(): void {
    const open = this.snapshot.openDir;
    if (!open) return;
    const t = this.tally(open.bucketId);
    offerTop(t.topDirectories, { name: open.parent, n: open.entries });
    if (open.entries > HUGE_DIRECTORY) t.anomalies.directoriesOver100k++;
    delete this.snapshot.openDir;
  }
}
