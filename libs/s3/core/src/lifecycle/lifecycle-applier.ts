import { randomUUID } from 'crypto';
import {
  decodeStoredLifecycle,
  evaluateObject,
  evaluateUpload,
  LifecycleAction,
  LifecycleActionKind,
  LifecycleConfiguration,
  LifecycleTiming,
  AWS_TIMING,
  TransitionStorageClass,
} from '@ostore/lifecycle/rules';
import type { BucketRow, VersionRow } from '@ostore/metastore/data-access';
import type { Clock } from '@ostore/shared/clock';
import { decodeId, NULL_VERSION_ID, publicVersionIdOf } from '../version-ids';
import type { KeyRead, LifecycleStore, PreparedTransition } from './lifecycle-store';
import { GroupView, versionGroupOf } from './version-group';

/**
 * What the applier can do to a key: the engine's four version actions, aborting an upload, and
 * converging a key's stale null rows (not a lifecycle rule's: the scan asks for it in any bucket).
 */
export type LifecycleApplyAction = LifecycleActionKind | 'abort-upload' | 'converge-nulls';

/** The metrics' and logs' action name of a null convergence (the others are AWS's element names). */
export const CONVERGE_NULLS_ACTION = 'ConvergeNulls';

/** Why an action was not taken. None of these is a failure: the state no longer calls for it. */
export type SkipReason =
  /** The bucket is gone or was re-created under the same name (another bucket id). */
  | 'bucket-gone'
  /** The bucket has no lifecycle configuration any more. */
  | 'no-lifecycle'
  /** The version (or upload) does not exist any more, or its id is not one of ours. */
  | 'version-gone'
  | 'upload-gone'
  /** Re-evaluated now, no rule calls for an action on this version (or upload). */
  | 'not-due'
  /** A write landed beneath our delete marker while we applied it: the marker was taken back. */
  | 'concurrent-write'
  /**
   * The key stayed claimed by others, or kept changing, through every attempt. Live claimants
   * hold a key for milliseconds: a lasting claim is most likely one a crashed scheduler left, gone
   * with its TTL — callers should try again later rather than drop the candidate.
   */
  | 'contended'
  /** A transition is due but no colder block tier is configured. */
  | 'no-cold-tier'
  /** The upload is being completed (or was completed): it is no longer incomplete. */
  | 'upload-completing'
  /** The key has no stale null rows (any more): a writer converged them since the scan. */
  | 'converged';

export interface ApplyResult {
  outcome: 'applied' | 'skipped';
  /** The action decided now (for a skip before any decision: the one the candidate suggested, if known). */
  action?: LifecycleApplyAction;
  /** The rule behind the action. */
  ruleId?: string;
  /** AWS's name of the rule element that acted (Expiration, NoncurrentVersionExpiration, ...). */
  s3Action?: string;
  reason?: SkipReason;
  /** For a transition: the new storage class. For an expiration: the marker's version id. */
  storageClass?: string;
  markerVersionId?: string;
}

export interface VersionTarget {
  bucketId: string;
  bucket: string;
  key: string;
  /** S3 version id ('null' or ours), or the raw vid. */
  versionId: string;
}

/** A key, as a candidate names it. */
export type KeyTarget = Omit<VersionTarget, 'versionId'>;

export interface UploadTarget {
  bucketId: string;
  bucket: string;
  key: string;
  /** S3 upload id, or the raw upload uuid. */
  uploadId: string;
}

/** Tunables of lifecycle application. */
export interface LifecycleApplierSettings {
  /** AWS day arithmetic, or a debug day (LIFECYCLE_DEBUG_DAY_SECONDS). */
  timing: LifecycleTiming;
  /** Most rows of one key read to decide (older ones only delay noncurrent actions, never hasten them). */
  maxVersions: number;
  /** Lifetime of the `cond` claim held while acting (a crashed scheduler blocks a key this long at most). */
  claimTtlSeconds: number;
  /** Read-decide-claim rounds before giving up on a key that keeps changing or stays claimed. */
  attempts: number;
  /** First wait after finding the key claimed by someone else; doubles each attempt. */
  busyBackoffMs: number;
  /** Block tier that transitions move data to; undefined: transitions are skipped ('no-cold-tier'). */
  transitionTier?: string;
}

export const defaultLifecycleApplierSettings: LifecycleApplierSettings = {
  timing: AWS_TIMING,
  maxVersions: 1000,
  claimTtlSeconds: 30,
  attempts: 5,
  busyBackoffMs: 50,
};

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** The vid an id names: 'null' stays 'null'; S3 ids are decoded; raw time uuids pass. */
export function parseTargetId(id: string): string | undefined {
  if (id === NULL_VERSION_ID) return NULL_VERSION_ID;
  return decodeId(id) ?? (UUID_RE.test(id) ? id.toLowerCase() : undefined);
}

/** AWS's element name for an action, as the metrics label it. */
export function s3ActionOf(action: Pick<LifecycleAction, 'kind' | 'reason'> | { kind: 'abort-upload' }): string {
  switch (action.kind) {
    case 'expire-current':
      return 'Expiration';
    case 'delete-version':
      return 'NoncurrentVersionExpiration';
    case 'remove-delete-marker':
      return 'ExpiredObjectDeleteMarker';
    case 'transition':
      return action.reason === 'noncurrent-version-transition' ? 'NoncurrentVersionTransition' : 'Transition';
    case 'abort-upload':
      return 'AbortIncompleteMultipartUpload';
  }
}

/** A bucket's stored configuration, or undefined when it has none. */
export function bucketLifecycle(bucket: BucketRow): LifecycleConfiguration | undefined {
  return bucket.lifecycle ? decodeStoredLifecycle(bucket.lifecycle, `bucket ${bucket.name}`) : undefined;
}

function usesTags(config: LifecycleConfiguration): boolean {
  return config.rules.some((r) => r.status === 'Enabled' && r.filter.tags.length > 0);
}

const skip = (reason: SkipReason, action?: LifecycleAction | { kind: 'abort-upload'; ruleId?: string }): ApplyResult => ({
  outcome: 'skipped',
  reason,
  ...(action ? { action: action.kind, ruleId: action.ruleId, s3Action: s3ActionOf(action) } : {}),
});

/**
 * Applies ONE lifecycle action to one version (or one multipart upload), deciding it again from
 * the current state: a candidate from the scanner is a hint, never an order.
 *
 * Protocol for versions, per attempt:
 *   1. read the key: its `objects` entry, then its rows (QUORUM: the entry is never written by
 *      Paxos, and step 3 compares it inside a Paxos round anyway);
 *   2. re-run the rule engine on them at the clock's current time; no action for the target
 *      version now means skip ('not-due') — e.g. it was overwritten, restored or already handled;
 *   3. claim the key with a Paxos round in its `objects` partition — the `cond` claim conditional
 *      PUTs use — that applies only while the entry is still the one read in step 1 and nobody
 *      else holds the key. 'changed' means the current version moved since step 1: back to 1.
 *      'busy' (a conditional PUT or another scheduler): back to 1 after a doubling backoff. After
 *      `attempts` rounds: skip ('contended'), for the caller to try again later — live claims
 *      last milliseconds, a lasting one is a crashed claimant's and ends with its TTL;
 *   4. act (below), check what can be checked afterwards, release the claim.
 * The claim serializes the scheduler with every other LWT writer of the key (conditional PUTs,
 * other schedulers — e.g. two that received the same candidate during a rebalance). Plain PUTs
 * and DELETEs use no Paxos (the hot path must not); they are ordered by their vts instead, and
 * step 4 is written so that such a write racing the action is never lost (see `expire`).
 *
 * Idempotent: everything is decided from the state, so applying a candidate twice, late or out of
 * order does nothing the second time (the engine finds nothing due). A crash after acting leaves
 * the claim to expire by its TTL (`claimTtlSeconds`); a crash midway is finished or made harmless
 * by the next delivery (null rows are converged on every read; see the actions).
 */
export class LifecycleApplier {
  private readonly settings: LifecycleApplierSettings;

  constructor(
    private readonly store: LifecycleStore,
    private readonly clock: Clock,
    settings: Partial<LifecycleApplierSettings> = {},
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.settings = { ...defaultLifecycleApplierSettings, ...settings };
  }

  get timing(): LifecycleTiming {
    return this.settings.timing;
  }

  async applyVersion(target: VersionTarget): Promise<ApplyResult> {
    const targetVid = parseTargetId(target.versionId);
    if (!targetVid) return skip('version-gone');
    for (let attempt = 0; attempt < this.settings.attempts; attempt++) {
      const bucket = await this.store.resolveBucket(target.bucket);
      if (!bucket || bucket.bucketId !== target.bucketId) return skip('bucket-gone');
      const config = bucketLifecycle(bucket);
      if (!config) return skip('no-lifecycle');

      // Allocated before the read: a write issued after our decision gets a higher vts and so
      // lands above our marker (see `expire`).
      const markerId = this.store.newMarkerId();
      const read = await this.store.readKey(bucket, target.key, this.settings.maxVersions);
      const view = await this.view(bucket, target.key, read, targetVid, config);
      const row = targetRow(view, targetVid);
      if (!row) return skip('version-gone');
      const wanted = publicVersionIdOf(row);
      const action = evaluateObject(config, view.group, this.clock.now(), this.settings.timing).find(
        (a) => a.versionId === wanted,
      );
      if (!action) return skip('not-due');
      if (action.kind === 'transition' && !this.settings.transitionTier) return skip('no-cold-tier', action);

      const prepared =
        action.kind === 'transition' ? await this.store.prepareTransition(row, this.settings.transitionTier!) : undefined;
      const token = randomUUID();
      let claim: Awaited<ReturnType<LifecycleStore['claim']>>;
      try {
        claim = await this.store.claim(bucket, target.key, read.indexRaw, token, this.settings.claimTtlSeconds);
      } catch (e) {
        if (prepared) await this.store.discardTransition(prepared).catch(() => undefined);
        throw e;
      }
      if (claim !== 'claimed') {
        if (prepared) await this.store.discardTransition(prepared);
        if (claim === 'busy') await this.sleep(this.settings.busyBackoffMs * 2 ** attempt);
        continue;
      }
      try {
        // Null rows left by a writer (or an expiration) that died before converging them are
        // removed under our claim, so that no other scheduler's check can see them vanish.
        if (view.staleNulls.length > 0) await this.store.convergeNulls(bucket, target.key);
        return await this.act(bucket, target.key, view, read, row, action, markerId, prepared);
      } catch (e) {
        // Blocks of a copy never referenced are dropped; referenced ones are left alone by discard.
        if (prepared) await this.store.discardTransition(prepared).catch(() => undefined);
        throw e;
      } finally {
        // Best effort: a release that fails leaves the claim to its TTL.
        await this.store.release(bucket, target.key, token).catch(() => undefined);
      }
    }
    return skip('contended');
  }

  /**
   * Converges the null rows of a key that the scan found stale (below its newest null row): left
   * by a writer whose convergence failed (a Cassandra error) or that died before it ran. Until
   * then each such row keeps its data and references, and one beneath a ghost comes back as the
   * null version once the ghost's TTL runs out — a deleted object served again. So this runs in
   * every bucket, with lifecycle rules or without.
   *
   * Decided again from a fresh read: a key without stale null rows now is skipped ('converged',
   * no Paxos round). Otherwise under the key's claim, like every other action here, so that no
   * other scheduler's check sees rows vanish in the middle of its action; writers of the key
   * converge without claims and may race us, which convergeNulls tolerates (each removal is
   * idempotent, and only rows below another null row are ever removed).
   */
  async convergeStaleNulls(target: KeyTarget): Promise<ApplyResult> {
    const result = (outcome: ApplyResult['outcome'], reason?: SkipReason): ApplyResult => ({
      outcome,
      action: 'converge-nulls',
      s3Action: CONVERGE_NULLS_ACTION,
      ...(reason ? { reason } : {}),
    });
    for (let attempt = 0; attempt < this.settings.attempts; attempt++) {
      const bucket = await this.store.resolveBucket(target.bucket);
      if (!bucket || bucket.bucketId !== target.bucketId) return result('skipped', 'bucket-gone');
      const read = await this.store.readKey(bucket, target.key, this.settings.maxVersions);
      // A key with more rows than were read may hold stale rows past them: convergeNulls reads them all.
      if (read.complete && versionGroupOf(target.key, bucket.versioning, read.rows, true).staleNulls.length === 0)
        return result('skipped', 'converged');
      const token = randomUUID();
      const claim = await this.store.claim(bucket, target.key, read.indexRaw, token, this.settings.claimTtlSeconds);
      if (claim !== 'claimed') {
        if (claim === 'busy') await this.sleep(this.settings.busyBackoffMs * 2 ** attempt);
        continue;
      }
      try {
        const removed = await this.store.convergeNulls(bucket, target.key);
        return removed > 0 ? result('applied') : result('skipped', 'converged');
      } finally {
        await this.store.release(bucket, target.key, token).catch(() => undefined);
      }
    }
    return result('skipped', 'contended');
  }

  /**
   * AbortIncompleteMultipartUpload, decided again: the upload must still exist, be incomplete
   * and be due under the bucket's current rules. The abort itself is AbortMultipartUpload's:
   * an LWT removes the upload row only while no completion has claimed it (`completing_vid`), so
   * a racing CompleteMultipartUpload wins or loses as a whole. An upload row already gone with
   * part rows left (an abort that died midway) gets its parts released: redelivery finishes it.
   */
  async applyUpload(target: UploadTarget): Promise<ApplyResult> {
    const abort = { kind: 'abort-upload' as const };
    const uploadVid = parseTargetId(target.uploadId);
    if (!uploadVid || uploadVid === NULL_VERSION_ID) return skip('upload-gone', abort);
    const bucket = await this.store.resolveBucket(target.bucket);
    if (!bucket || bucket.bucketId !== target.bucketId) return skip('bucket-gone', abort);
    const upload = await this.store.readUpload(bucket, target.key, uploadVid);
    if (!upload) {
      await this.store.dropLeftoverParts(bucket, uploadVid);
      return skip('upload-gone', abort);
    }
    if (upload.completed) return skip('upload-completing', abort);
    const config = bucketLifecycle(bucket);
    if (!config) return skip('no-lifecycle', abort);
    const due = evaluateUpload(config, { key: target.key, initiated: upload.initiated }, this.clock.now(), this.settings.timing);
    if (!due) return skip('not-due', abort);
    const decided = { kind: 'abort-upload' as const, ruleId: due.ruleId };
    const outcome = await this.store.abortUpload(bucket, target.key, uploadVid);
    if (outcome === 'gone') return skip('upload-gone', decided);
    if (outcome === 'completing') return skip('upload-completing', decided);
    return { outcome: 'applied', action: 'abort-upload', ruleId: due.ruleId, s3Action: s3ActionOf(decided) };
  }

  private async view(
    bucket: BucketRow,
    key: string,
    read: KeyRead,
    targetVid: string,
    config: LifecycleConfiguration,
  ): Promise<GroupView> {
    let extra: VersionRow | undefined;
    const inRead = targetVid === NULL_VERSION_ID ? read.rows.some((r) => r.isNull) : read.rows.some((r) => r.vid === targetVid);
    if (!read.complete && !inRead) extra = await this.store.readVersion(bucket, key, targetVid);
    let tags = new Map<string, Record<string, string>>();
    if (usesTags(config)) {
      const vids = [...read.rows, ...(extra ? [extra] : [])].filter((r) => !r.isDeleteMarker).map((r) => r.vid);
      tags = await this.store.readTags(vids);
    }
    return versionGroupOf(key, bucket.versioning, read.rows, read.complete, tags, extra);
  }

  private async act(
    bucket: BucketRow,
    key: string,
    view: GroupView,
    read: KeyRead,
    row: VersionRow,
    action: LifecycleAction,
    markerId: { vts: number; vid: string },
    prepared: PreparedTransition | undefined,
  ): Promise<ApplyResult> {
    const applied = (extra: Partial<ApplyResult> = {}): ApplyResult => ({
      outcome: 'applied',
      action: action.kind,
      ruleId: action.ruleId,
      s3Action: s3ActionOf(action),
      ...extra,
    });
    const isCurrent = view.current?.vid === row.vid;
    switch (action.kind) {
      case 'expire-current': {
        if (!isCurrent || row.isDeleteMarker) return skip('not-due', action);
        const marker = await this.expire(bucket, key, row, markerId);
        return marker ? applied({ markerVersionId: marker }) : skip('concurrent-write', action);
      }
      case 'delete-version': {
        // Never the current version, whatever a rule says: noncurrent rules act on noncurrent ones.
        if (isCurrent) return skip('not-due', action);
        await this.store.removeVersion(bucket, row);
        // The index is untouched unless the version became current meanwhile (newer versions
        // deleted by a user after our claim): then it must stop naming it.
        await this.store.repairIndexAfterRemoval(bucket, key, row);
        return applied();
      }
      case 'remove-delete-marker': {
        // Only a current marker that hides nothing: every row of the key read, and it is the only
        // one (a stale null row beneath would reappear).
        if (!isCurrent || !row.isDeleteMarker || !read.complete || read.rows.length !== 1) return skip('not-due', action);
        await this.store.removeVersion(bucket, row);
        await this.store.reconcileIndex(bucket, key, row.vts);
        return applied();
      }
      case 'transition': {
        const storageClass = action.storageClass as TransitionStorageClass;
        const outcome = await this.store.commitTransition(bucket, key, row, prepared!, storageClass);
        if (outcome === 'gone') return skip('version-gone', action);
        if (outcome === 'changed') return skip('concurrent-write', action);
        return applied({ storageClass });
      }
    }
  }

  /**
   * Expiration of the current version `row`, as DeleteObject without a version id does it:
   * a delete marker (Enabled), a null delete marker replacing the null version (Suspended), a
   * ghost replacing the null version (Unversioned). Returns the marker's version id, or undefined
   * when the marker had to be taken back.
   *
   * A plain PUT racing us is ordered by vts: the marker's vts was allocated before we read, so a
   * PUT issued after our decision lands above the marker and stays current. One issued before but
   * landing after our read would end up beneath the marker, hidden by an expiration decided
   * without it: so after committing we look at the row right beneath the marker; anything but the
   * expired version means such a write, and the marker is removed again (the index repaired above
   * its timestamp) — the object is left as if we had never come. For null markers the null rows
   * are converged only after that check. (A null PUT's own writer may still converge first: for
   * null versions the newest vts wins, as between a PUT and a DELETE in the gateway.)
   */
  private async expire(bucket: BucketRow, key: string, row: VersionRow, id: { vts: number; vid: string }): Promise<string | undefined> {
    const kind = bucket.versioning === 'Unversioned' ? 'ghost' : 'marker';
    const isNull = bucket.versioning !== 'Enabled';
    if (id.vts <= row.vts) id = this.store.newMarkerId();
    if (id.vts <= row.vts) throw new Error(`clock behind the version to expire (vts ${row.vts}); not expiring ${bucket.name}/${key}`);
    const marker = await this.store.commitMarker(bucket, key, { vid: id.vid, kind, isNull });
    // For a null marker one read of the key's newest rows serves both the check beneath the marker
    // and the null convergence: it holds every null row when it holds every row of the key (a
    // null row and its `null_versions` mirror are written and deleted in one mutation).
    const rows = isNull ? await this.store.newestRows(bucket, key, NULL_CHECK_ROWS + 1) : [];
    const at = rows.findIndex((r) => r.vid === marker.vid);
    const [below] = at >= 0 ? rows.slice(at + 1, at + 2) : await this.store.rowsBelow(bucket, key, marker, 1);
    if (below?.vid !== row.vid) {
      await this.store.removeVersion(bucket, marker);
      await this.store.reconcileIndex(bucket, key, marker.vts);
      return undefined;
    }
    if (isNull) {
      if (at >= 0 && rows.length <= NULL_CHECK_ROWS) {
        // convergeNulls over the rows just read: every null row but the newest goes
        for (const stale of rows.filter((r) => r.isNull).slice(1)) await this.store.removeVersion(bucket, stale);
      } else await this.store.convergeNulls(bucket, key, marker);
    }
    return publicVersionIdOf(marker);
  }
}

/**
 * Rows of a key read after committing a null marker (normally 2: the marker and the expired null
 * version). A key with more rows (a suspended bucket's older versions) falls back to reading
 * `null_versions` for the convergence.
 */
const NULL_CHECK_ROWS = 16;

/** The visible row a target vid names ('null': the key's null version as readers see it). */
function targetRow(view: GroupView, vid: string): VersionRow | undefined {
  return vid === NULL_VERSION_ID ? view.visible.find((r) => r.isNull) : view.visible.find((r) => r.vid === vid);
}
