import { z } from 'zod';
import { BucketSnapshot } from './combine';
import { HostSnapshot } from './snapshot';

const count = z.number().int().nonnegative();
const signed = z.number().int();
const ranked = z.array(z.object({ name: z.string(), n: count }).strict());
/** Absent in snapshots written before the block scan: they still decode (as no blocks). */
const rankedBlocks = z.array(
  z.object({ name: z.string(), n: count, size: count, buckets: z.record(z.string(), count) }).strict(),
);
const blockTotals = z.object({ blocks: count, refs: count, maxRefs: count }).strict();
const anomalies = z.object({ overdueVersions: count, objectsOver100Versions: count, directoriesOver100k: count }).strict();
const classes = z.record(z.string(), z.object({ current: count, noncurrent: count }).strict());

const tally = z
  .object({
    name: z.string().optional(),
    bytes: count,
    objects: count,
    versions: count,
    deleteMarkers: count,
    classes,
    uploads: count,
    uploadBytes: count,
    recent: z.record(z.string().regex(/^\d+$/), z.tuple([count, count, count])),
    recentClasses: z.record(z.string().regex(/^\d+$/), z.record(z.string(), z.tuple([count, count]))).optional(),
    newer: z.object({ versions: count, bytes: count }).strict(),
    topBySize: ranked,
    topByVersions: ranked,
    topDirectories: ranked,
    topBlocks: rankedBlocks.optional(),
    anomalies,
  })
  .strict();

const hostSnapshot = z
  .object({
    v: z.literal(1),
    cutMs: count,
    lookbackMs: count,
    buckets: z.record(z.string(), tally),
    blocks: blockTotals.optional(),
    openDir: z.object({ bucketId: z.string(), parent: z.string(), entries: count }).strict().optional(),
  })
  .strict();

/** Bytes and counts of a combined bucket may go below zero by the documented bound (removals during a pass). */
const bucketSnapshot = z
  .object({
    v: z.literal(1),
    bucketId: z.string(),
    name: z.string().optional(),
    cutMs: count,
    bytes: signed,
    objects: signed,
    versions: signed,
    deleteMarkers: count,
    classes,
    uploads: count,
    uploadBytes: count,
    topBySize: ranked,
    topByVersions: ranked,
    topDirectories: ranked,
    topBlocks: rankedBlocks.default([]),
    anomalies,
  })
  .strict();

/** Thrown for a stored snapshot this build cannot read. */
export class SnapshotFormatError extends Error {
  constructor(what: string, cause: string) {
    super(`unreadable ${what}: ${cause}`);
    this.name = 'SnapshotFormatError';
  }
}

/**
 * The one stored form of a host's snapshot (JSON, version 1): inside `scan_state.stat` while its
 * pass runs and in `host_snapshots` once it completed. Writers and readers both use this module.
 */
export const HostSnapshotCodec = {
  encode(s: HostSnapshot): unknown {
    return s;
  },
  /** Reads a stored host snapshot; throws SnapshotFormatError for anything else. */
  decode(value: unknown): HostSnapshot {
    const r = hostSnapshot.safeParse(value);
    if (!r.success) throw new SnapshotFormatError('host snapshot', r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    return r.data as HostSnapshot;
  },
};

/** The one stored form of a combined bucket snapshot (`bucket_snapshots.stat`, JSON, version 1). */
export const BucketSnapshotCodec = {
  encode(b: BucketSnapshot): string {
    const { cut, ...rest } = b;
    return JSON.stringify({ v: 1, ...rest, cutMs: cut.getTime() });
  },
  /** Reads a stored bucket snapshot; throws SnapshotFormatError for anything else. */
  decode(text: string): BucketSnapshot {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new SnapshotFormatError('bucket snapshot', (e as Error).message);
    }
    const r = bucketSnapshot.safeParse(value);
    if (!r.success) throw new SnapshotFormatError('bucket snapshot', r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    const { v: _v, cutMs, ...rest } = r.data;
    return { ...rest, cut: new Date(cutMs) } as BucketSnapshot;
  },
};
