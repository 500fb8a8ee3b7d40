import { LifecycleTiming } from '@ostore/lifecycle/rules';
import { MessageContractError, UploadCandidate, VersionCandidate } from '@ostore/queue/contracts';
import { BucketCatalog, ScanBucket } from './bucket-catalog';
import { KeyGrouper } from './key-grouper';
import { ScanLog, ScanTask } from './local-scanner';
import { judgeObject, judgeUploads, needsTags, taggedVids } from './object-verdict';
import { PageSource } from './page-source';
import {
  ScannedObject,
  ScannedUploadRow,
  ScannedUploads,
  ScannedVersionRow,
  UploadGroupBuilder,
  VersionGroupBuilder,
} from './scanned-object';
import type { VersionRow } from '@ostore/metastore/data-access';
import { partsOf, ScanSnapshots, UploadPartSource, VersionTail } from './scan-snapshots';
import { ScanStats } from './scan-state';
import { ScanMetrics } from './scan.metrics';
import { VersionTagSource } from './version-tags';

/** How the scanner evaluates rules. */
export interface LifecycleScanSettings {
  /** AWS day arithmetic, or the debug day (LIFECYCLE_DEBUG_DAY_SECONDS). */
  readonly timing: LifecycleTiming;
  /** An action later than this is counted as overdue. */
  readonly overdueGraceMs: number;
  /** `sourceHost` of the candidates. */
  readonly sourceHost: string;
}

async function bucketOf(buckets: BucketCatalog, bucketId: string): Promise<ScanBucket | undefined> {
  return buckets.peek(bucketId) ?? (await buckets.get(bucketId));
}

/** Every visible version of an object, as its snapshot counts it (`tail`: the versions past the rows read). */
function snapshotObject(obj: ScannedObject, bucket: ScanBucket | undefined, overdue: number, tail: readonly VersionRow[]) {
  const beyond = obj.beyond ? [...obj.beyond.rows, ...tail] : [];
  return {
    bucketId: obj.bucketId,
    bucket: bucket?.name,
    parent: obj.parent,
    name: obj.name,
    current: obj.current,
    noncurrent: beyond.length ? [...obj.noncurrent, ...beyond] : obj.noncurrent,
    overdue,
  };
}

/**
 * The lifecycle scan of `versions`: one VersionCandidate per object with at least one version
 * due now (dry run), to the `versions` queue; counts overdue versions per bucket. Objects of
 * buckets without a lifecycle configuration are only counted — unless they hold stale null rows
 * (a writer's null convergence failed or never ran): in every bucket such an object is a
 * candidate with `staleNulls`, so that the scheduler converges it before a ghost above those
 * rows expires and a deleted object would be served again. With `snapshots`, every version of
 * every object is counted into the pass's usage snapshot (once per object, with the object's
 * overdue versions); the scan still reads only the window of a long history and leaves the rest
 * to one query of that key (`tail`), which the snapshot alone needs.
 */
export class VersionsScanTask implements ScanTask<ScannedVersionRow, ScannedObject> {
  readonly handler = 'versions' as const;
  readonly queue = 'versions' as const;

  constructor(
    readonly source: PageSource<ScannedVersionRow>,
    private readonly buckets: BucketCatalog,
    private readonly tags: VersionTagSource,
    private readonly settings: LifecycleScanSettings,
    private readonly metrics: ScanMetrics,
    private readonly log: ScanLog,
    private readonly snapshots?: { readonly counting: ScanSnapshots; readonly tail: VersionTail },
  ) {}

  newGrouper(): KeyGrouper<ScannedVersionRow, ScannedObject> {
    return new KeyGrouper((first) => new VersionGroupBuilder(first, undefined, this.snapshots !== undefined));
  }

  begin(): Promise<void> {
    return this.buckets.load();
  }

  started(stats: ScanStats, passTs: Date, resumed: boolean): void {
    this.snapshots?.counting.started(stats, passTs, resumed);
  }

  async process(obj: ScannedObject, now: Date, stats: ScanStats): Promise<string[]> {
    const bucket = await bucketOf(this.buckets, obj.bucketId);
    const counter = this.snapshots?.counting.counter(stats);
    const tail = counter && obj.beyond ? await this.snapshots!.tail.visibleAfter(obj, obj.beyond.last, obj.beyond.seenNull) : [];
    const staleNulls = obj.staleNulls > 0;
    if (!bucket?.lifecycle) {
      counter?.addObject(snapshotObject(obj, bucket, 0, tail));
      // A bucket gone from the catalog has nothing left to converge: its rows go with it.
      return bucket && staleNulls ? this.candidate(bucket, obj, [], true, now, stats) : [];
    }
    const key = obj.parent + obj.name;
    const tags = needsTags(bucket.lifecycle, key) ? await this.tags.tagsOf(taggedVids(obj)) : undefined;
    const verdict = judgeObject(bucket, obj, now, this.settings.timing, this.settings.overdueGraceMs, tags);
    stats.overdue[bucket.name] = (stats.overdue[bucket.name] ?? 0) + verdict.overdue;
    counter?.addObject(snapshotObject(obj, bucket, verdict.overdue, tail));
    if (verdict.eligible.length === 0 && !staleNulls) return [];
    return this.candidate(bucket, obj, verdict.eligible, staleNulls, now, stats);
  }

  /** The object's candidate message (none when its contract refuses it: counted and logged). */
  private candidate(
    bucket: ScanBucket,
    obj: ScannedObject,
    versions: VersionCandidate['versions'],
    staleNulls: boolean,
    now: Date,
    stats: ScanStats,
  ): string[] {
    const key = obj.parent + obj.name;
    try {
      const message = VersionCandidate.toMessage({
        bucketId: bucket.bucketId,
        bucket: bucket.name,
        key,
        parent: obj.parent,
        name: obj.name,
        versions,
        staleNulls,
        scannedAt: now,
        sourceHost: this.settings.sourceHost,
      });
      stats.candidates++;
      if (staleNulls) this.metrics.staleNullKeys.inc();
      return [message];
    } catch (e) {
      if (!(e instanceof MessageContractError)) throw e;
      this.metrics.rejectedCandidates.inc({ queue: this.queue });
      this.log.warn('candidate rejected by its contract; skipped', { bucket: bucket.name, key, err: e.message });
      return [];
    }
  }

  async completed(stats: ScanStats, passTs: Date): Promise<void> {
    this.metrics.setOverdue(stats.overdue);
    await this.snapshots?.counting.completed(this.handler, stats, passTs);
  }
}

/**
 * AbortIncompleteMultipartUpload over `uploads`: one UploadCandidate per due upload, to the
 * `uploads` queue. With `snapshots`, counts every key's incomplete uploads and their parts.
 */
export class UploadsScanTask implements ScanTask<ScannedUploadRow, ScannedUploads> {
  readonly handler = 'uploads' as const;
  readonly queue = 'uploads' as const;

  constructor(
    readonly source: PageSource<ScannedUploadRow>,
    private readonly buckets: BucketCatalog,
    private readonly settings: Pick<LifecycleScanSettings, 'timing'>,
    private readonly metrics: ScanMetrics,
    private readonly log: ScanLog,
    private readonly snapshots?: { readonly counting: ScanSnapshots; readonly parts: UploadPartSource },
  ) {}

  newGrouper(): KeyGrouper<ScannedUploadRow, ScannedUploads> {
    return new KeyGrouper((first) => new UploadGroupBuilder(first));
  }

  begin(): Promise<void> {
    return this.buckets.load();
  }

  started(stats: ScanStats, passTs: Date, resumed: boolean): void {
    this.snapshots?.counting.started(stats, passTs, resumed);
  }

  async completed(stats: ScanStats, passTs: Date): Promise<void> {
    await this.snapshots?.counting.completed(this.handler, stats, passTs);
  }

  async process(group: ScannedUploads, now: Date, stats: ScanStats): Promise<string[]> {
    if (group.uploads.length === 0) return [];
    const bucket = await bucketOf(this.buckets, group.bucketId);
    const counter = this.snapshots?.counting.counter(stats);
    if (counter) {
      const parts = (await Promise.all(group.uploads.map((u) => partsOf(this.snapshots!.parts, u.uploadId)))).flat();
      counter.addUploads({ bucketId: group.bucketId, bucket: bucket?.name, uploads: group.uploads.length, parts });
    }
    if (!bucket?.lifecycle) return [];
    const out: string[] = [];
    for (const candidate of judgeUploads(bucket, group, now, this.settings.timing)) {
      try {
        out.push(UploadCandidate.toMessage(candidate));
      } catch (e) {
        if (!(e instanceof MessageContractError)) throw e;
        this.metrics.rejectedCandidates.inc({ queue: this.queue });
        this.log.warn('candidate rejected by its contract; skipped', { bucket: bucket.name, key: candidate.key, err: e.message });
      }
    }
    stats.candidates += out.length;
    return out;
  }
}
