import { Anomalies, BucketTally, ClassBytes, HostSnapshot, RankedBlock } from './snapshot';
import { mergeTops, Ranked, TOP_K } from './top-k';

/** A host's completed snapshot of one table, as the combiner reads it. */
export interface CompletedHostSnapshot {
  readonly source: string;
  readonly handler: string;
  /** When the pass completed. */
  readonly completedAt: Date;
  readonly snapshot: HostSnapshot;
}

/** One bucket of the combined snapshot: every host's figures at the common cut. */
export interface BucketSnapshot {
  readonly bucketId: string;
  readonly name?: string;
  /** Versions and parts written before this instant are counted; later ones come from the deltas. */
  readonly cut: Date;
  readonly bytes: number;
  readonly objects: number;
  readonly versions: number;
  readonly deleteMarkers: number;
  /** Version bytes per storage class at the cut (current / noncurrent as each host read them). */
  readonly classes: Record<string, ClassBytes>;
  readonly uploads: number;
  readonly uploadBytes: number;
  readonly topBySize: Ranked[];
  readonly topByVersions: Ranked[];
  readonly topDirectories: Ranked[];
  /** The most-referenced blocks the bucket references (see `mergeBlockTops` for what it guarantees). */
  readonly topBlocks: RankedBlock[];
  readonly anomalies: Anomalies;
}

/** The hosts' snapshots combined into one per bucket. */
export interface CombinedSnapshot {
  readonly cut: Date;
  /** The host snapshots combined (`source/handler`). */
  readonly parts: readonly string[];
  /** When the oldest of them completed: how old the combined snapshot is. */
  readonly oldestCompletedAt: Date;
  readonly buckets: readonly BucketSnapshot[];
}

/** Why host snapshots could not be combined. */
export class SnapshotsTooFarApartError extends Error {
  constructor(
    readonly source: string,
    readonly cut: Date,
  ) {
    super(`the snapshot of ${source} does not reach back to the common cut ${cut.toISOString()}`);
    this.name = 'SnapshotsTooFarApartError';
  }
}

/**
 * Combines every host's completed snapshots (of versions and of uploads) into one per bucket, at
 * the common cut C = the earliest cut of them (undefined when none counts usage). Every host counted what was written before its own
 * cut, which is C or later; its per-window sums of the lookback take back out what it counted of
 * [C, its cut), so that every host's figures count exactly what was written before C (and still
 * existed when it read it). A host whose lookback does not reach back to C cannot be brought to
 * C: SnapshotsTooFarApartError (the combination is skipped; the snapshot age alert fires when
 * that lasts). Top lists are merged (each host's list is its own top K: a directory partition
 * lives on one host); anomaly counters add up. The snapshots of `block_refs` passes only add their
 * top lists of blocks (see `mergeBlockTops`): they count no usage and do not move the cut.
 */
export function combineSnapshots(parts: readonly CompletedHostSnapshot[]): CombinedSnapshot | undefined {
  if (parts.length === 0) return undefined;
  // A pass over block_refs counts no usage (its snapshot carries block totals): it has no say in the cut.
  // Without any, there is no usage at a cut to combine: block lists alone would read as empty buckets.
  const usage = parts.filter((p) => p.snapshot.blocks === undefined);
  if (usage.length === 0) return undefined;
  const cutMs = Math.min(...usage.map((p) => p.snapshot.cutMs));
  for (const p of usage)
    if (p.snapshot.cutMs - p.snapshot.lookbackMs > cutMs) throw new SnapshotsTooFarApartError(p.source, new Date(cutMs));
  const byBucket = new Map<string, BucketTally[]>();
  for (const p of parts)
    for (const [bucketId, t] of Object.entries(p.snapshot.buckets)) {
      const list = byBucket.get(bucketId) ?? [];
      list.push(atCut(t, cutMs));
      byBucket.set(bucketId, list);
    }
  const cut = new Date(cutMs);
  const buckets = [...byBucket.entries()].map(([bucketId, tallies]) => sumTallies(bucketId, cut, tallies));
  buckets.sort((a, b) => (a.bucketId < b.bucketId ? -1 : a.bucketId > b.bucketId ? 1 : 0));
  return {
    cut,
    parts: parts.map((p) => `${p.source}/${p.handler}`).sort(),
    oldestCompletedAt: new Date(Math.min(...parts.map((p) => p.completedAt.getTime()))),
    buckets,
  };
}

/** A bucket that had nothing before the cut (absent from a combination). */
export function emptyBucketSnapshot(bucketId: string, cut: Date): BucketSnapshot {
  return sumTallies(bucketId, cut, []);
}

/** A host's tally brought back to an earlier cut: what it counted of [cutMs, its cut) taken out. */
function atCut(t: BucketTally, cutMs: number): BucketTally {
  let [bytes, objects, versions] = [t.bytes, t.objects, t.versions];
  for (const [w, sums] of Object.entries(t.recent)) {
    if (Number(w) < cutMs) continue;
    bytes -= sums[0];
    objects -= sums[1];
    versions -= sums[2];
  }
  const classes: Record<string, ClassBytes> = {};
  for (const [cls, b] of Object.entries(t.classes)) classes[cls] = { ...b };
  for (const [w, byClass] of Object.entries(t.recentClasses ?? {})) {
    if (Number(w) < cutMs) continue;
    for (const [cls, [current, noncurrent]] of Object.entries(byClass)) {
      const c = (classes[cls] ??= { current: 0, noncurrent: 0 });
      c.current -= current;
      c.noncurrent -= noncurrent;
    }
  }
  return { ...t, bytes, objects, versions, classes };
}

function sumTallies(bucketId: string, cut: Date, tallies: readonly BucketTally[]): BucketSnapshot {
  const classes: Record<string, ClassBytes> = {};
  const anomalies: Anomalies = { overdueVersions: 0, objectsOver100Versions: 0, directoriesOver100k: 0 };
  let [bytes, objects, versions, deleteMarkers, uploads, uploadBytes] = [0, 0, 0, 0, 0, 0];
  let name: string | undefined;
  for (const t of tallies) {
    name ??= t.name;
    bytes += t.bytes;
    objects += t.objects;
    versions += t.versions;
    deleteMarkers += t.deleteMarkers;
    uploads += t.uploads;
    uploadBytes += t.uploadBytes;
    for (const [cls, b] of Object.entries(t.classes)) {
      const sum = (classes[cls] ??= { current: 0, noncurrent: 0 });
      sum.current += b.current;
      sum.noncurrent += b.noncurrent;
    }
    anomalies.overdueVersions += t.anomalies.overdueVersions;
    anomalies.objectsOver100Versions += t.anomalies.objectsOver100Versions;
    anomalies.directoriesOver100k += t.anomalies.directoriesOver100k;
  }
  return {
    bucketId,
    ...(name === undefined ? {} : { name }),
    cut,
    bytes,
    objects,
    versions,
    deleteMarkers,
    classes,
    uploads,
    uploadBytes,
    topBySize: mergeTops(tallies.map((t) => t.topBySize)),
    topByVersions: mergeTops(tallies.map((t) => t.topByVersions)),
    topDirectories: mergeTops(tallies.map((t) => t.topDirectories)),
    topBlocks: mergeBlockTops(tallies.map((t) => t.topBlocks ?? [])),
    anomalies,
  };
}

/**
 * The top K of the hosts' top lists of most-referenced blocks. What it guarantees: every block
 * has ONE `block_refs` partition, which the pass over `block_refs` of exactly one host (its
 * primary replica) reads whole, so each block comes with ALL its references from one host and
 * the merge of the hosts' exact top K is the exact top K of the cluster — as of each host's pass
 * (the counts are not brought to the common cut: a reference has no time of its own, and passes
 * of different hosts read at different times). A block listed by two hosts (its range moved
 * between their passes) is kept once, with its larger count (the hosts'
 * passes are not ordered here): it may then be off by the references changed between the passes.
 */
export function mergeBlockTops(lists: readonly (readonly RankedBlock[])[], k = TOP_K): RankedBlock[] {
  const byId = new Map<string, RankedBlock>();
  for (const list of lists)
    for (const b of list) {
      const seen = byId.get(b.name);
      if (!seen || b.n > seen.n) byId.set(b.name, b);
    }
  return mergeTops([[...byId.values()]], k);
}
