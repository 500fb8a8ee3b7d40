import { encodeId, publicVersionIdOf, VersionRow } from '@ostore/metastore/data-access';
import {
  evaluateObject,
  evaluateUpload,
  isOverdue,
  LifecycleAction,
  LifecycleConfiguration,
  LifecycleTiming,
  nextDueAt,
  ObjectVersion,
  VersionGroup,
} from '@ostore/lifecycle/rules';
import type { EligibleVersion, UploadCandidate, VersionAction } from '@ostore/queue/contracts';
import { rulesFor, ScanBucket } from './bucket-catalog';
import { ScannedObject, ScannedUploads } from './scanned-object';

/** Tags by vid, for the versions whose tags were read. */
export type TagsByVid = ReadonlyMap<string, Record<string, string>>;

/** The rule engine's view of a scanned object: current version first, then the window, newest first. */
export function versionGroupOf(bucket: ScanBucket, obj: ScannedObject, tags?: TagsByVid): VersionGroup {
  const version = (row: VersionRow, isLatest: boolean): ObjectVersion => ({
    versionId: publicVersionIdOf(row),
    isLatest,
    isDeleteMarker: row.isDeleteMarker,
    size: row.size,
    lastModified: row.lastModified,
    storageClass: row.storageClass,
    tags: tags?.get(row.vid),
  });
  return {
    key: obj.parent + obj.name,
    versioning: bucket.versioning,
    versions: [
      ...(obj.current ? [version(obj.current, true)] : []),
      ...obj.noncurrent.map((row) => version(row, false)),
    ],
    keptAll: obj.keptAll,
  };
}

/** Whether evaluating this key needs the versions' tags: some rule that applies to it filters by tag. */
export function needsTags(config: LifecycleConfiguration, key: string): boolean {
  return rulesFor(config, key).some((r) => r.filter.tags.length > 0);
}

/** The vids whose tags an evaluation of `obj` reads (delete markers have none). */
export function taggedVids(obj: ScannedObject): string[] {
  const rows = obj.current ? [obj.current, ...obj.noncurrent] : obj.noncurrent;
  return rows.filter((r) => !r.isDeleteMarker).map((r) => r.vid);
}

/** The queue contract's name of an engine action. */
export function versionActionOf(action: LifecycleAction): VersionAction {
  switch (action.kind) {
    case 'expire-current':
      return 'Expiration';
    case 'delete-version':
      return 'NoncurrentVersionExpiration';
    case 'remove-delete-marker':
      return 'ExpiredObjectDeleteMarker';
    case 'transition':
      return action.reason === 'noncurrent-version-transition' ? 'NoncurrentVersionTransition' : 'Transition';
  }
}

export interface ObjectVerdict {
  /** Versions with an action due now (dry run); empty: no candidate. */
  readonly eligible: EligibleVersion[];
  /** Versions whose earliest action is overdue by more than the grace (isOverdue). */
  readonly overdue: number;
}

/**
 * Dry-run evaluation of one object at `now`: what is due (evaluateObject), and how many versions
 * "should long have been gone" — the earliest action of a version (nextDueAt) is more than
 * `graceMs` late. An overdue version is also due, so it is in the candidate as well: the warning
 * counts what the cleanup failed to do in time, not what the scanner missed.
 */
export function judgeObject(
  bucket: ScanBucket,
  obj: ScannedObject,
  now: Date,
  timing: LifecycleTiming,
  graceMs: number,
  tags?: TagsByVid,
): ObjectVerdict {
  const config = bucket.lifecycle;
  if (!config || rulesFor(config, obj.parent + obj.name).length === 0) return { eligible: [], overdue: 0 };
  const group = versionGroupOf(bucket, obj, tags);
  const eligible = evaluateObject(config, group, now, timing).map((a) => ({
    versionId: a.versionId,
    rules: [{ ruleId: a.ruleId, action: versionActionOf(a) }],
  }));
  const overdue = nextDueAt(config, group, now, timing).filter((a) => isOverdue(a, now, graceMs)).length;
  return { eligible, overdue };
}

/** AbortIncompleteMultipartUpload candidates due now among a key's incomplete uploads. */
export function judgeUploads(
  bucket: ScanBucket,
  uploads: ScannedUploads,
  now: Date,
  timing: LifecycleTiming,
): UploadCandidate[] {
  const config = bucket.lifecycle;
  if (!config) return [];
  const key = uploads.parent + uploads.name;
  const out: UploadCandidate[] = [];
  for (const u of uploads.uploads) {
    const due = evaluateUpload(config, { key, initiated: u.initiated }, now, timing);
    if (due)
      out.push({ bucketId: bucket.bucketId, bucket: bucket.name, key, uploadId: encodeId(u.uploadId), ruleId: due.ruleId });
  }
  return out;
}
