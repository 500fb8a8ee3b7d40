import { randomUUID } from 'crypto';
import type { BlockManager } from '@ostore/storage/blocks';
import type { Clock } from '@ostore/shared/clock';
import type { ContextLogger } from '@ostore/shared/observability';
import { NewestReadGroups } from '@ostore/metastore/data-access';
import type { BlockEntry, Metastore, NewestReadGroupsSink, NullRowRef, RowExtras } from '@ostore/metastore/data-access';
import type { RowReadOptions, VersionLocator, VersionMetaRow, VersionRow } from '@ostore/metastore/data-access';
import type { ChecksumAlgorithm, ObjectMeta, Owner } from './api';
import { invalidVersionId, s3err } from './errors';
import { FolderCache } from './folder-cache';
import { IndexRechecks } from './index-rechecks';
import { folderRowsOf, splitKey } from './keys';
import type { S3CoreSettings } from './s3-core.options';
import type { QuotaGuard } from './quota/quota-guard';
import { removalEventId, type UsageRecorder } from './usage';
import { decodeId, makeVid, NULL_VERSION_ID, uuidBytes, uuidString, VersionClock, vtsOfVid } from './version-ids';
import { BucketKey, VersionData } from './version-data';
import { blockRefOf, blockRefs, indexEntryOf, metaRowOf, newVersionRow, versionRef } from './version-mapping';
import { checkWriteCondition } from './write-conditions';
import { PartitionDeletes } from './partition-deletes';
import { staleNullRows } from './null-rows';
import { type ConvergenceMetricsSink, NoopConvergenceMetrics } from './convergence-metrics';
import { NullConvergencePolicy } from './null-convergence';

export type { BucketKey } from './version-data';

/** What a new version row is. */
export type VersionKind = 'object' | 'marker' | 'ghost';

export interface CommitSpec {
  bucket: BucketKey;
  key: string;
  kind: VersionKind;
  /** A null version (unversioned or suspended bucket): replaces the key's previous null version. */
  isNull: boolean;
  owner: Owner;
  blocks?: BlockEntry[];
  size?: number;
  etag?: string;
  storageClass?: string;
  meta?: ObjectMeta;
  checksums?: Partial<Record<ChecksumAlgorithm, string>>;
  partCount?: number;
  /**
   * The whole body, stored inline in `version_meta` instead of blocks (then `blocks` is empty):
   * no block references, nothing in a block store. See S3CoreSettings.inlineBodyMaxBytes.
   */
  inlineBody?: Buffer;
  /** A vid chosen earlier (multipart completion claims it before building the object). */
  vid?: string;
  /**
   * Each block's reference the version takes over (multipart completion: its part's), moved in one
   * compare-and-set per block; a failure keeps the manifest, for the retry or the abort.
   */
  refsFrom?: (block: BlockEntry) => string;
  /**
   * Leave the null-version convergence (step 6) to the caller: lifecycle expiration first checks
   * that nothing landed beneath its marker, then converges (or takes the marker back).
   */
  deferNullConvergence?: boolean;
}

/** What removeVersion knew of the version it removed (the row, or its null summary). */
export interface RemovedVersion {
  size: number;
  isDeleteMarker: boolean;
  isGhost: boolean;
  /** The body was in the row (truthy: no blocks), as VersionRow.inlineBody. */
  inlineBody?: Buffer | boolean;
  /** No `version_meta` row, as read after the row's removal landed (PartitionDeletes): none to delete. */
  noMetaRow?: boolean;
}

/** Whether an `objects` row showing `indexVid` (undefined: no row) agrees with the newest version row. */
function agrees(newest: VersionRow | undefined, indexVid: string | undefined): boolean {
  if (!newest || newest.isDeleteMarker) return indexVid === undefined;
  return indexVid === newest.vid;
}

/**
 * The write protocol of versions, shared by PUT, COPY, DELETE and multipart completion.
 *
 * Commit order (a crash at any point never exposes a half-built object, at worst leaks a manifest
 * and block references that a checker can find through `version_meta`):
 *   1. manifest (`version_blocks`, `version_meta`), keyed by the new vid — invisible; a small
 *      body is stored inline in `version_meta` (then there are no blocks and no step 2). A body
 *      that goes in the row itself (rowBodyMaxBytes), without tags or encryption, has no manifest
 *      at all (S3CoreSettings.rowOnlyMeta): the row's snapshot is its metadata, nothing can leak,
 *      and a later tag or ACL change writes `version_meta` from the snapshot (updateMeta);
 *   2. block references `v:<vid>` (the blocks stop being in flight);
 *   3. folder rows of every ancestor directory (idempotent upserts, no read) — concurrently with
 *      1-2: neither depends on the other, both complete before step 4;
 *   4. ONE mutation of the key's (bucket_id, parent) partition: the version row, its null mirror,
 *      and the `objects` index write or delete, all at `vts` — the moment the version appears;
 *   5. only for a mutation sent late (see "who checks the index"): check that the `objects` row
 *      agrees with the newest version (checkIndex);
 *   6. for a null version: converge the key's null rows (below), or leave them to the lifecycle
 *      scan (S3CoreSettings.nullConvergence 'scan': no read on the PUT of a key not rewritten).
 * A small unconditional PUT is thus two round trips in a versioned bucket ([meta ‖ folders] →
 * mutation, no read) and three with null versions (→ the null rows: one read, unless left to the
 * scan); a small plain one (rowOnlyMeta) sends one Cassandra request less: the mutation alone.
 *
 * No Paxos: concurrent writers of a key are ordered by vts (unique per process, markers winning
 * ties) in `versions`, and the `objects` row uses vts as its write timestamp, so both converge on
 * the same newest version whatever order the mutations land in.
 *
 * Null versions: a converging writer of a null row re-reads the key's null rows AFTER its mutation
 * and removes every null row but the newest. Of two racing converging writers the last to re-read
 * sees both rows, so one null version survives; readers only ever show the newest. Rows a writer
 * leaves (nullConvergence 'scan', or a failed re-read) are removed by the scan and the scheduler.
 *
 * Who checks the index. Writers alone converge (every one writes the index at its own vts); only a
 * repair (reconcileIndex: a permanent delete of the current version, a lifecycle expiration or
 * transition) writes above the version it shows and can hide the index write of a writer still in
 * flight. Invariant: a writer sends its mutation within `indexFlightMs / 2` of its vts, or it reads
 * the index back after landing (checkIndex; multipart completion's early vid, a very slow manifest);
 * a repair is looked at again `indexFlightMs` after its timestamp (IndexRechecks), when every
 * mutation it may have hidden has landed. So an unconditional PUT reads nothing for the index, and
 * the index agrees with the newest version once the repairs' re-checks have run.
 */
export class VersionStore extends VersionData {
  private readonly folderCache: FolderCache;
  /** The delayed second look of index repairs (see "who checks the index"). */
  readonly indexRechecks: IndexRechecks;
  /** DeleteObjects: many keys of one directory partition in shared reads and mutations. */
  readonly partitionDeletes: PartitionDeletes;
  /** Who converges a null version's key: the writer or the scan (nullConvergence). */
  private readonly nullConvergence: NullConvergencePolicy;

  constructor(
    ms: Metastore,
    blocks: BlockManager,
    private readonly vclock: VersionClock,
    private readonly clock: Clock,
    settings: S3CoreSettings,
    usage: UsageRecorder,
    private readonly log: ContextLogger,
    quota: QuotaGuard,
    private readonly convergence: ConvergenceMetricsSink = new NoopConvergenceMetrics(),
    readGroups?: NewestReadGroupsSink,
  ) {
    super(ms, blocks, settings, usage, quota, new NewestReadGroups(ms, () => clock.monotonicMs(), settings.newestReadGroups, readGroups));
    this.folderCache = new FolderCache(clock, settings.folderCacheTtlMs);
    this.indexRechecks = new IndexRechecks(clock, settings.indexFlightMs, (b, p, n, floor) => this.reconcileIndex(b, p, n, floor), log);
    this.partitionDeletes = new PartitionDeletes(ms, this, settings.ghostTtlSeconds, log, convergence);
    this.nullConvergence = new NullConvergencePolicy(settings, convergence);
  }

  /** Upserts the folder rows of `table` this process has not written lately (see FolderCache). */
  async ensureFolders(table: 'version_folders' | 'object_folders', bucketId: string, key: string, at: Date): Promise<void> {
    const rows = this.folderCache.missing(table, bucketId, folderRowsOf(key));
    if (rows.length === 0) return;
    const startedMs = this.clock.nowMs();
    await (table === 'version_folders' ? this.ms.versionFolders : this.ms.objectFolders).ensure(bucketId, rows, at);
    this.folderCache.remember(table, bucketId, rows, startedMs);
  }

  newVid(kind: VersionKind): { vts: number; vid: string } {
    const vts = this.vclock.next();
    return { vts, vid: uuidString(makeVid(vts, kind === 'object' ? 'object' : 'marker')) };
  }

  nowMicros(): number {
    return this.clock.nowMs() * 1000;
  }

  /** The `version_meta` row a commit of `spec` writes (without a body that goes in the row). */
  private metaRowOfSpec(vid: string, vts: number, spec: CommitSpec, bodyInRow: boolean): VersionMetaRow {
    const { bucket, key, meta, checksums, inlineBody } = spec;
    const metaBody = bodyInRow ? undefined : inlineBody;
    return metaRowOf(vid, vts, bucket.bucketId, key, meta ?? { userMeta: {} }, checksums ?? {}, metaBody);
  }

  /** Steps 1-2 of the commit: manifest and references; undone (manifest dropped) if adding them fails. */
  private async writeManifest(meta: VersionMetaRow, spec: CommitSpec): Promise<void> {
    const vid = meta.vid;
    const blocks = spec.blocks ?? [];
    await this.ms.versions.writeManifest(vid, blocks, meta);
    const from = spec.refsFrom; // moved references are not undone: see CommitSpec.refsFrom
    if (from) {
      await this.blocks.moveRefs(blocks.map((b) => ({ block: blockRefOf(b), from: from(b) })), versionRef(vid));
      return;
    }
    try {
      if (blocks.length > 0) await this.blocks.addRefs(blockRefs(blocks), versionRef(vid));
    } catch (e) {
      await this.ms.versions.deleteManifest(vid).catch(() => undefined);
      throw e;
    }
  }

  /** Creates a version (object, delete marker or ghost); see the class comment for the protocol. */
  async commit(spec: CommitSpec, manifestDone = false): Promise<VersionRow> {
    const bucketId = spec.bucket.bucketId;
    const { parent, name } = splitKey(spec.key);
    const ids = spec.vid ? { vid: spec.vid, vts: vtsOfVid(uuidBytes(spec.vid)) } : this.newVid(spec.kind);
    const row = newVersionRow(spec, ids);
    // Steps 1-2 and 3 are independent (both only have to land before step 4): one round trip.
    // allSettled, so that a failure of one never leaves the other still running behind our back.
    const before: Promise<unknown>[] = [];
    // GET in one read: the row carries a snapshot of the metadata this commit writes (a manifest
    // written earlier, by multipart completion, is not at hand: such a row has none) and a small
    // inline body, which is then stored only in the row.
    const extras: RowExtras = {};
    if (spec.kind === 'object' && !manifestDone) {
      const bodyInRow = !!spec.inlineBody && spec.inlineBody.length <= this.settings.rowBodyMaxBytes;
      if (bodyInRow) extras.inlineBody = spec.inlineBody;
      const meta = this.metaRowOfSpec(row.vid, row.vts, spec, bodyInRow);
      extras.meta = meta;
      // A small plain version's row holds all of it (body and snapshot): no `version_meta` row.
      // Tags stay out (the lifecycle scan reads them from `version_meta`), and so does encryption.
      const rowOnly = this.settings.rowOnlyMeta && bodyInRow && !spec.blocks?.length && Object.keys(meta.tags).length === 0 && !meta.sse;
      if (!rowOnly) before.push(this.writeManifest(meta, spec));
    }
    if (spec.kind !== 'ghost') {
      const at = row.lastModified;
      before.push(this.ensureFolders('version_folders', bucketId, spec.key, at));
      if (spec.kind === 'object') before.push(this.ensureFolders('object_folders', bucketId, spec.key, at));
    }
    const failed = (await Promise.allSettled(before)).find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    const statements = this.ms.versions.insertStatements(
      row,
      spec.kind === 'ghost' ? this.settings.ghostTtlSeconds : undefined,
      extras,
    );
    statements.push(
      spec.kind === 'object'
        ? this.ms.objects.putStatement(bucketId, parent, name, indexEntryOf(row), row.vts)
        : this.ms.objects.deleteStatement(bucketId, parent, name, row.vts),
    );
    // Sent later than a repair's re-check allows for (see "who checks the index"): we check ourselves.
    const sentLate = this.nowMicros() - row.vts > this.indexRechecks.sendBoundMicros;
    const converge = this.nullConvergence.convergesAtWrite(spec);
    // If this mutation times out it may still have been applied: the references stay (a leak the
    // checker can find), never released while a visible version might use them.
    await this.ms.applyPartitionMutation(statements);
    // Steps 5 and 6 both only need our mutation to have landed; each tolerates the other (and
    // other writers) running at the same time, so they go out together.
    await Promise.all([
      sentLate
        ? this.checkIndex(row).catch((err: unknown) => {
            this.convergence.failed('index_check');
            this.log.warn('index check after commit failed', { bucket: spec.bucket.name, key: spec.key, err: (err as Error).message });
          })
        : undefined,
      converge
        ? this.convergeNulls(spec.bucket, parent, name, row).catch((err: unknown) => {
            this.convergence.failed('null_versions');
            this.log.warn('null version cleanup failed; the next write of the key or the scheduler (after a scan) retries it', {
              bucket: spec.bucket.name,
              key: spec.key,
              err: (err as Error).message,
            });
          })
        : undefined,
    ]);
    return row;
  }

  /**
   * Removes every null row of the key but the newest (their blocks released). A single stale row
   * (the usual overwrite) is removed from its `null_versions` summary (migration 013), without
   * reading the row. Two convergers can never both see exactly one stale row that is the same
   * row (each read follows its own landing, so one of them sees the other's row too); the one
   * seeing more reads each row first, and finds it gone if the other removed it, so a removal
   * is reported once, as when every row was read.
   *
   * `own` is the row the caller just wrote: it counts as the newest even when the read no longer
   * finds it (a ghost whose TTL ran out before the read), see staleNullRows. Resolves to the
   * number of stale rows found (each removed now, or already by a racing converger).
   *
   * A convergence that fails here is only logged by the writer; the rows it leaves are found by
   * the lifecycle scan (ScannedObject.staleNulls, in every bucket) and converged by the scheduler
   * (LifecycleApplier.convergeStaleNulls), within a scan interval — well inside a ghost's TTL.
   */
  async convergeNulls(bucket: BucketKey, parent: string, name: string, own?: VersionLocator): Promise<number> {
    const stale = staleNullRows(await this.ms.versions.nullRows(bucket.bucketId, parent, name), own);
    for (const ref of stale) {
      const { summary, ...loc } = ref;
      await this.removeVersion(bucket, stale.length === 1 && summary ? ref : loc, true);
    }
    return stale.length;
  }

  /**
   * Permanently removes one version row: the row first (it disappears), then its block references
   * and manifest. The delete's timestamp exceeds the row's vts even if this clock lags the writer's.
   * Idempotent: racing removers of the same row both succeed.
   *
   * The row is read with its body column: a body kept in the row means the version has no blocks
   * (CommitSpec.inlineBody), so neither `version_blocks` is read nor its partition deleted (one
   * read and one tombstone less for every overwrite or delete of a small object). A null row's
   * `null_versions` summary (NullRowRef) tells the same without reading the row; the answer then
   * carries only what the summary knows.
   */
  async removeVersion(bucket: BucketKey, loc: VersionLocator | NullRowRef, isNull: boolean): Promise<RemovedVersion | undefined> {
    const known = 'summary' in loc ? loc.summary : undefined;
    const row: RemovedVersion | undefined = known ? { ...known, inlineBody: known.bodyInRow } : await this.ms.versions.get(loc, { body: true });
    const at = Math.max(this.nowMicros(), loc.vts + 1);
    await this.ms.applyPartitionMutation(this.ms.versions.deleteStatements(loc, isNull, at));
    await this.afterRemoval(bucket, loc, row);
    return row;
  }

  /**
   * What follows the removal of a version row (removeVersion, or a batch of them in one mutation:
   * PartitionDeletes): its manifest and block references go, and a version that held data is
   * reported removed once, under the row's own event id.
   */
  async afterRemoval(bucket: BucketKey, loc: VersionLocator, row: RemovedVersion | undefined): Promise<void> {
    if (row?.inlineBody && !row.isDeleteMarker) {
      if (!row.noMetaRow) await this.ms.versions.deleteManifest(loc.vid, { blocks: false });
    } else if (!row || !row.isDeleteMarker) {
      await this.dropManifest(loc.vid);
    }
    // one removal (bytes, the object, and a quota bucket's ledger) for every version that held data
    if (row && !row.isDeleteMarker) await this.recordUsage(bucket, 'remove', -row.size, row.isGhost ? 0 : -1, undefined, removalEventId(loc.vid));
  }

  /**
   * After its mutation landed, a writer that sent it late checks that the `objects` row still
   * agrees with the newest version (one read when it shows our version or, for a marker, nothing).
   * It can disagree only if a permanent delete of a newer version repaired the index while our
   * mutation was in flight (the repair had to write above the deleted version's timestamp, hiding
   * our write); we then repair it again. Writers that sent in time leave this to the repair's
   * delayed re-check (IndexRechecks).
   */
  async checkIndex(row: VersionRow): Promise<void> {
    const cur = await this.ms.objects.get(row.bucketId, row.parent, row.name);
    if (row.isDeleteMarker ? !cur : cur?.entry.vid === row.vid) return;
    const [newest] = await this.ms.versions.newest(row.bucketId, row.parent, row.name, 1);
    if (agrees(newest, cur?.entry.vid)) return;
    await this.reconcileIndex(row.bucketId, row.parent, row.name, Math.max(row.vts, cur?.writetime ?? 0));
  }

  /**
   * Makes the `objects` row of a key agree with its newest version (after a permanent delete, or
   * when a writer finds them disagreeing).
   *
   * Cassandra keeps the highest timestamp, so a plain write at the newest version's vts would lose
   * to the cell or tombstone of a removed newer version: the repair writes at
   * max(newest vts, floor + 1, current cell + 1), `floor` being the highest vts known to have
   * touched the row, and re-reads until both agree. When the row stays absent (a tombstone above
   * our write), the next attempt writes at a fresh vts, which is above every timestamp issued so
   * far. A repair may thus hide a write still in flight: every write here is looked at again once
   * such writes have landed (IndexRechecks), or by the writer itself when it sent late.
   */
  async reconcileIndex(bucketId: string, parent: string, name: string, floor: number): Promise<void> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const readAtMs = this.clock.nowMs();
      const [newest] = await this.ms.versions.newest(bucketId, parent, name, 1);
      const cur = await this.ms.objects.get(bucketId, parent, name);
      if (agrees(newest, cur?.entry.vid)) return;
      let at: number;
      if (newest && !newest.isDeleteMarker) {
        at = Math.max(newest.vts, floor + 1, (cur?.writetime ?? 0) + 1);
        if (attempt > 0 && !cur) at = Math.max(at, this.vclock.next());
        await this.ms.objects.execute(this.ms.objects.putStatement(bucketId, parent, name, indexEntryOf(newest), at));
      } else {
        at = Math.max(cur!.writetime, newest?.vts ?? 0);
        await this.ms.objects.execute(this.ms.objects.deleteStatement(bucketId, parent, name, at));
      }
      this.indexRechecks.afterRepair(bucketId, parent, name, at, readAtMs);
      floor = Math.max(floor, at);
    }
    this.log.warn('index repair did not settle; the next write of the key repairs it', { bucketId, parent, name });
  }

  /**
   * The row a version id names: 'null' is the key's newest null row (not a ghost); other ids are
   * decoded to (vts, vid) and read directly. InvalidArgument for ids that are not ours.
   */
  async findVersion(
    bucketId: string,
    key: string,
    versionId: string,
    options: RowReadOptions = {},
  ): Promise<VersionRow | undefined> {
    const { parent, name } = splitKey(key);
    if (versionId === NULL_VERSION_ID) {
      const [loc] = await this.ms.versions.nullRows(bucketId, parent, name);
      if (!loc) return undefined;
      const row = await this.ms.versions.get(loc, options);
      return row && !row.isGhost ? row : undefined;
    }
    const vid = decodeId(versionId);
    if (!vid) throw invalidVersionId(versionId);
    const row = await this.ms.versions.get({ bucketId, parent, name, vts: vtsOfVid(uuidBytes(vid)), vid }, options);
    return row && !row.isNull ? row : undefined;
  }

  /**
   * The early, cheap half of a conditional write: If-None-Match: * / If-Match checked against the
   * index row at the default consistency, before a body is stored, so a request that cannot win
   * stores nothing. Not a decision: claimConditional checks again inside the compare-and-set.
   */
  async precheckConditional(bucket: BucketKey, key: string, ifNoneMatch: string | undefined, ifMatch: string | undefined): Promise<void> {
    const { parent, name } = splitKey(key);
    checkWriteCondition(key, (await this.ms.objects.get(bucket.bucketId, parent, name))?.entry.etag, ifNoneMatch, ifMatch);
  }

  /**
   * Checks If-None-Match: * / If-Match against the current object (a SERIAL read), then claims the
   * key with a Paxos round that succeeds only if the current object is still the one checked and
   * no other conditional writer holds it: two conditional writes (PutObject, CopyObject,
   * CompleteMultipartUpload) can never both win. Release with releaseClaim once the write is
   * visible (or failed).
   */
  async claimConditional(
    bucket: BucketKey,
    key: string,
    ifNoneMatch: string | undefined,
    ifMatch: string | undefined,
  ): Promise<{ token: string }> {
    const { parent, name } = splitKey(key);
    const cur = await this.ms.objects.getSerial(bucket.bucketId, parent, name);
    checkWriteCondition(key, cur?.entry.etag, ifNoneMatch, ifMatch);
    const token = randomUUID();
    const outcome = await this.ms.objects.claim(
      bucket.bucketId,
      parent,
      name,
      cur?.raw ?? null,
      token,
      this.settings.conditionalClaimTtlSeconds,
    );
    if (outcome === 'busy')
      throw s3err('ConditionalRequestConflict', 'A conflicting operation occurred. Please retry.');
    if (outcome === 'changed')
      throw s3err('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
        Condition: ifMatch !== undefined ? 'If-Match' : 'If-None-Match',
      });
    return { token };
  }

  /** Gives up a claim of claimConditional (it would otherwise expire by TTL). Never throws. */
  async releaseClaim(bucket: BucketKey, key: string, claim: { token: string }): Promise<void> {
    const { parent, name } = splitKey(key);
    await this.ms.objects.releaseClaim(bucket.bucketId, parent, name, claim.token).catch((err: unknown) =>
      this.log.warn('could not release a conditional-write claim; it expires by TTL', {
        bucket: bucket.name,
        key,
        err: (err as Error).message,
      }),
    );
  }
}
