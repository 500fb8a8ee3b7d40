import { Ranked } from './top-k';

/**
 * Width of the snapshot cut's grid, ms: equal to the stats app's aggregate window (5 minutes,
 * `WINDOW_MS` of @ostore/stats/domain, pinned equal by apps/stats' snapshot spec), so that the
 * deltas after a cut are whole aggregates.
 */
export const CUT_GRID_MS = 5 * 60_000;

/** By default a host records per-window sums of the versions written this long before its cut. */
export const DEFAULT_LOOKBACK_MS = 2 * 3_600_000;

/** An object with more versions than this counts as an anomaly. */
export const MANY_VERSIONS = 100;

/** A directory with more entries than this counts as an anomaly. */
export const HUGE_DIRECTORY = 100_000;

/** Bytes of one storage class. */
export interface ClassBytes {
  /** Of current versions. */
  current: number;
  /** Of noncurrent versions. */
  noncurrent: number;
}

/**
 * One of the most-referenced blocks: `name` is the block id, `n` ALL its references (of every
 * bucket, counted from its `block_refs` partition), `size` its bytes, `buckets` the references per
 * bucket id among those resolved (a reference whose version or part cannot be traced to a bucket is
 * in `n` only).
 */
export interface RankedBlock extends Ranked {
  readonly size: number;
  readonly buckets: Readonly<Record<string, number>>;
}

/** What a pass over `block_refs` counted in all: blocks, their references, the most of one block. */
export interface BlockTotals {
  blocks: number;
  refs: number;
  maxRefs: number;
}

/** The counters that anomalies are found by. */
export interface Anomalies {
  /** Versions whose lifecycle action is overdue by more than the scanner's grace. */
  overdueVersions: number;
  /** Objects with more than MANY_VERSIONS versions (delete markers included). */
  objectsOver100Versions: number;
  /** Directories with more than HUGE_DIRECTORY entries. */
  directoriesOver100k: number;
}

/** Bytes, objects and versions written in one cut-grid window before the cut: `[bytes, objects, versions]`. */
export type RecentSums = [number, number, number];

/**
 * One bucket as one host's pass saw it. Every figure counts only what was written before the
 * pass's cut (version timestamp, part time < cut); what was written later is left to the deltas.
 */
export interface BucketTally {
  /** The bucket's name, when the scanner knew it. */
  name?: string;
  /** Bytes of every visible version (current and noncurrent) and of in-progress multipart parts. */
  bytes: number;
  /** Keys whose current version is not a delete marker. */
  objects: number;
  /** Visible versions that are not delete markers (current and noncurrent). */
  versions: number;
  deleteMarkers: number;
  /** Version bytes per storage class. */
  classes: Record<string, ClassBytes>;
  /** Incomplete multipart uploads and the bytes of their parts (included in `bytes`). */
  uploads: number;
  uploadBytes: number;
  /** Sums of what was written in the lookback before the cut, per window start (ms, as a string key). */
  recent: Record<string, RecentSums>;
  /**
   * Version bytes written in the lookback per window start and storage class, `[current, noncurrent]`
   * as counted into `classes`: what brings the classes back to an earlier cut. Absent in snapshots
   * of builds before it (their classes stay at the host's own cut).
   */
  recentClasses?: Record<string, Record<string, [number, number]>>;
  /** Versions and bytes written after the cut (seen, not counted: the deltas carry them). */
  newer: { versions: number; bytes: number };
  topBySize: Ranked[];
  topByVersions: Ranked[];
  topDirectories: Ranked[];
  /**
   * The bucket's most-referenced blocks this host holds (the pass over `block_refs`; absent in
   * snapshots of other tables and of builds before it).
   */
  topBlocks?: RankedBlock[];
  anomalies: Anomalies;
}

/**
 * What one host's pass over one table counted (stored in `scan_state.stat.usage` while the pass
 * runs, so that a resumed pass goes on counting, and as the host's completed snapshot).
 */
export interface HostSnapshot {
  v: 1;
  /** Versions (and parts) written before this instant (ms since epoch, on the cut grid) are counted. */
  cutMs: number;
  /** Per-window sums are kept for versions written in [cutMs - lookbackMs, cutMs). */
  lookbackMs: number;
  buckets: Record<string, BucketTally>;
  /** Totals of a pass over `block_refs` (absent for other tables and builds before it). */
  blocks?: BlockTotals;
  /** The directory being counted when the pass saved its position (its entries so far). */
  openDir?: { bucketId: string; parent: string; entries: number };
}

/** The cut of a pass that starts at `startMs`: the start of its cut-grid window. */
export function cutOf(startMs: number): number {
  return Math.floor(startMs / CUT_GRID_MS) * CUT_GRID_MS;
}

/**
 * When the pass after one that started at `lastStartMs` is due, for passes every `intervalMs`.
 * An interval of at least one grid window is kept on the grid: the next pass is due at the first
 * grid point at or after the previous pass's cut plus the interval, so that it starts at its own
 * cut. A removal between the cut and the pass's read of the key is counted twice (see
 * `replacesHostSnapshot`); on the grid that window is the pass itself, not also the time from the
 * cut to the pass's start (up to the whole interval otherwise). An interval that is not a multiple
 * of the grid is thereby rounded up to one. Shorter intervals are not aligned: such passes start
 * within one interval of every cut anyway.
 */
export function nextPassDue(lastStartMs: number, intervalMs: number): number {
  if (intervalMs < CUT_GRID_MS) return lastStartMs + intervalMs;
  return Math.ceil((cutOf(lastStartMs) + intervalMs) / CUT_GRID_MS) * CUT_GRID_MS;
}

/**
 * Whether a table's newly completed pass replaces the host's previous one (`host_snapshots` keeps
 * one per host and table). A pass that counts usage does NOT replace a pass of the same cut: the
 * first completed pass of a cut stays until a pass at a later cut completes. Every pass at a cut
 * counts what was written before it, but a removal since the cut of something written before it is
 * missing from a pass that read the key after the removal, and the removal's delta (after the cut)
 * takes it out again: the earlier the pass, the fewer such removals it misses (README, "How
 * exact"). With the newest pass kept instead, which pass the stats app combined depended on when
 * it combined: one down across a 5-minute boundary combined a pass that started long after the cut
 * and counted every removal in between twice. A pass over `block_refs` (block totals, no cut of
 * its own) always replaces: its lists are best when newest.
 */
export function replacesHostSnapshot(previousPassTs: Date | undefined, next: HostSnapshot): boolean {
  if (previousPassTs === undefined || next.blocks !== undefined) return true;
  return cutOf(previousPassTs.getTime()) !== next.cutMs;
}

/** A snapshot that has counted nothing yet. */
export function emptyHostSnapshot(startMs: number, lookbackMs = DEFAULT_LOOKBACK_MS): HostSnapshot {
  return { v: 1, cutMs: cutOf(startMs), lookbackMs, buckets: {} };
}

/** A bucket that has counted nothing yet. */
export function emptyTally(name?: string): BucketTally {
  return {
    ...(name === undefined ? {} : { name }),
    bytes: 0,
    objects: 0,
    versions: 0,
    deleteMarkers: 0,
    classes: {},
    uploads: 0,
    uploadBytes: 0,
    recent: {},
    newer: { versions: 0, bytes: 0 },
    topBySize: [],
    topByVersions: [],
    topDirectories: [],
    anomalies: { overdueVersions: 0, objectsOver100Versions: 0, directoriesOver100k: 0 },
  };
}
