import type { BlockEntry, BucketRow, Metastore, UploadRow, VersionLocator, VersionRow } from '@ostore/metastore/data-access';
import type { BlockManager } from '@ostore/storage/blocks';
import { S3DomainError } from '../api';
import { splitKey } from '../keys';
import type { CassandraMultipartService } from '../multipart.service';
import type { S3Core } from '../s3-core';
import { encodeId, NULL_VERSION_ID, uuidBytes, vtsOfVid } from '../version-ids';
import { blockRefs, indexEntryOf, versionRef } from '../version-mapping';
import type { VersionStore } from '../version-store';
import type { AbortOutcome, ClaimOutcome, KeyRead, LifecycleStore, PreparedTransition, TransitionOutcome } from './lifecycle-store';
import { transitionRank } from './transition-rank';

function locOf(row: VersionRow): VersionLocator {
  return { bucketId: row.bucketId, parent: row.parent, name: row.name, vts: row.vts, vid: row.vid };
}

function sameBlocks(a: BlockEntry[], b: BlockEntry[]): boolean {
  return a.length === b.length && a.every((x, i) => x.blockId === b[i].blockId && x.tier === b[i].tier);
}

/** Consecutive blocks of the same part (one run for a simple object). */
function partRuns(blocks: BlockEntry[]): BlockEntry[][] {
  const runs: BlockEntry[][] = [];
  for (const b of blocks) {
    const last = runs[runs.length - 1];
    if (last && last[0].partNumber === b.partNumber) last.push(b);
    else runs.push([b]);
  }
  return runs;
}

/**
 * The LifecycleStore over an S3 core: its VersionStore (commits and removals keep the write
 * protocol's invariants), its multipart service (aborts), its metastore repositories (claims,
 * reads, transitions) and its BlockManager (copies to a colder tier).
 */
export class CassandraLifecycleStore implements LifecycleStore {
  private readonly store: VersionStore;
  private readonly multipart: CassandraMultipartService;
  private readonly ms: Metastore;
  private readonly blocks: BlockManager;

  constructor(core: S3Core) {
    this.store = core.store;
    this.multipart = core.multipart;
    this.ms = core.metastore;
    this.blocks = core.blocks;
  }

  resolveBucket(name: string): Promise<BucketRow | undefined> {
    return this.ms.buckets.get(name);
  }

  async readKey(bucket: BucketRow, key: string, limit: number): Promise<KeyRead> {
    const { parent, name } = splitKey(key);
    // The entry first: if a version lands between the two reads, the rows show it while the
    // entry does not, and the claim (IF entry = what we read) fails instead of acting on a mixed
    // view. QUORUM, not SERIAL: `entry` is never written by Paxos, the claim's compare is what
    // linearizes (a SERIAL read would cost a Paxos round per action for nothing).
    const raw = await this.ms.objects.getRaw(bucket.bucketId, parent, name);
    const rows = await this.ms.versions.newest(bucket.bucketId, parent, name, limit + 1);
    return { indexRaw: raw ?? null, rows: rows.slice(0, limit), complete: rows.length <= limit };
  }

  async readVersion(bucket: BucketRow, key: string, vid: string): Promise<VersionRow | undefined> {
    const { parent, name } = splitKey(key);
    if (vid === NULL_VERSION_ID) {
      const [loc] = await this.ms.versions.nullRows(bucket.bucketId, parent, name);
      return loc ? this.ms.versions.get(loc) : undefined;
    }
    return this.ms.versions.get({ bucketId: bucket.bucketId, parent, name, vts: vtsOfVid(uuidBytes(vid)), vid });
  }

  async readTags(vids: string[]): Promise<Map<string, Record<string, string>>> {
    const out = new Map<string, Record<string, string>>();
    for (let i = 0; i < vids.length; i += 32) {
      const metas = await Promise.all(vids.slice(i, i + 32).map((vid) => this.ms.versions.readMeta(vid)));
      metas.forEach((m, j) => out.set(vids[i + j], m?.tags ?? {}));
    }
    return out;
  }

  /**
   * The conditional PUT's claim (`cond`, with a TTL) in the key's `objects` row, applied only
   * while `entry` is still `expectedRaw`. Tombstones: the claim and its release leave one dead
   * cell in the directory's `objects` partition per key acted on (none when the action deleted
   * the row at a later timestamp); the deletion itself leaves what a DeleteObject leaves. For a
   * key without an index row (a delete marker is current) the claim creates a row holding only
   * `cond`, which listings skip.
   */
  claim(bucket: BucketRow, key: string, expectedRaw: string | null, token: string, ttlSeconds: number): Promise<ClaimOutcome> {
    const { parent, name } = splitKey(key);
    return this.ms.objects.claim(bucket.bucketId, parent, name, expectedRaw, token, ttlSeconds);
  }

  /** Drops our claim only (IF cond = token): never another claimant's, even after our TTL ran out. */
  release(bucket: BucketRow, key: string, token: string): Promise<void> {
    const { parent, name } = splitKey(key);
    return this.ms.objects.releaseClaim(bucket.bucketId, parent, name, token);
  }

  newMarkerId(): { vts: number; vid: string } {
    return this.store.newVid('marker');
  }

  commitMarker(bucket: BucketRow, key: string, marker: { vid: string; kind: 'marker' | 'ghost'; isNull: boolean }): Promise<VersionRow> {
    // Lifecycle markers belong to the bucket owner, as in S3.
    return this.store.commit({
      bucket,
      key,
      kind: marker.kind,
      isNull: marker.isNull,
      owner: { id: bucket.ownerId, displayName: bucket.ownerName },
      vid: marker.vid,
      deferNullConvergence: true,
    });
  }

  newestRows(bucket: BucketRow, key: string, limit: number): Promise<VersionRow[]> {
    const { parent, name } = splitKey(key);
    return this.ms.versions.newest(bucket.bucketId, parent, name, limit);
  }

  rowsBelow(_bucket: BucketRow, _key: string, row: VersionRow, limit: number): Promise<VersionRow[]> {
    return this.ms.versions.olderThan(locOf(row), limit);
  }

  async removeVersion(bucket: BucketRow, row: VersionRow): Promise<void> {
    await this.store.removeVersion(bucket, locOf(row), row.isNull);
  }

  convergeNulls(bucket: BucketRow, key: string, own?: VersionRow): Promise<number> {
    const { parent, name } = splitKey(key);
    return this.store.convergeNulls(bucket, parent, name, own);
  }

  reconcileIndex(bucket: BucketRow, key: string, floor: number): Promise<void> {
    const { parent, name } = splitKey(key);
    return this.store.reconcileIndex(bucket.bucketId, parent, name, floor);
  }

  async repairIndexAfterRemoval(bucket: BucketRow, key: string, removed: VersionRow): Promise<void> {
    const { parent, name } = splitKey(key);
    const cur = await this.ms.objects.get(bucket.bucketId, parent, name);
    if (cur?.entry.vid === removed.vid) await this.store.reconcileIndex(bucket.bucketId, parent, name, removed.vts);
  }

  /**
   * Copies, part by part (part numbers are kept for partNumber GETs), the blocks not yet in `tier`
   * through `writeStream(openRead(...), {tier})`. The copies are in flight: never referenced,
   * they are reclaimed by the block GC if we die before committing.
   */
  async prepareTransition(row: VersionRow, tier: string): Promise<PreparedTransition> {
    const old = await this.ms.versions.readBlocks(row.vid);
    const next: BlockEntry[] = [];
    const written: BlockEntry[] = [];
    try {
      for (const run of partRuns(old)) {
        if (run.every((b) => b.tier === tier)) {
          next.push(...run);
          continue;
        }
        const stored = await this.blocks.writeStream(this.blocks.openRead(blockRefs(run)), { tier });
        const entries = stored.blocks.map((b) => ({ ...b, partNumber: run[0].partNumber }));
        written.push(...entries);
        next.push(...entries);
      }
    } catch (e) {
      await this.blocks.discard(blockRefs(written)).catch(() => undefined);
      throw e;
    }
    return { vid: row.vid, old, next, written };
  }

  /**
   * Under the claim:
   *   1. the copies get the version's reference `v:<vid>` (a crash from here on leaks references,
   *      never loses data: the old blocks stay referenced until step 5);
   *   2. the version row and its manifest must still be the ones copied, else undo ('gone' /
   *      'changed');
   *   3. the manifest is replaced in one single-partition batch (readers see old or new);
   *   4. the storage class: the version row (and the `objects` entry if it names this version),
   *      one mutation of the key's partition, written at vts + 1 + rank of the class — above the
   *      row's own timestamp, below any permanent delete of it (at now >> vts), and rising along
   *      the waterfall so a later, colder transition always wins; then the index is checked
   *      against the newest version like every index writer does;
   *   5. the old blocks lose the version's reference (deleted when nothing else refers to them);
   *   6. if the version was deleted meanwhile, its remover may have released the old blocks only:
   *      the copies are released and the manifest dropped again ('gone').
   * A GET that opened the old manifest before step 3 and reads after step 5 fails midway.
   */
  async commitTransition(
    bucket: BucketRow,
    key: string,
    row: VersionRow,
    prepared: PreparedTransition,
    storageClass: string,
  ): Promise<TransitionOutcome> {
    const loc = locOf(row);
    const ref = versionRef(row.vid);
    const blocks = this.blocks;
    const undo = async (outcome: TransitionOutcome) => {
      if (prepared.written.length > 0) await blocks.releaseRefs(blockRefs(prepared.written), ref);
      return outcome;
    };
    if (prepared.written.length > 0) {
      try {
        await blocks.addRefs(blockRefs(prepared.written), ref);
      } catch (e) {
        await blocks.discard(blockRefs(prepared.written)).catch(() => undefined);
        throw e;
      }
    }
    const current = await this.ms.versions.get(loc);
    if (!current) return undo('gone');
    if (current.storageClass !== row.storageClass || !sameBlocks(await this.ms.versions.readBlocks(row.vid), prepared.old))
      return undo('changed');

    if (prepared.written.length > 0) await this.ms.versions.replaceBlocks(row.vid, prepared.next);

    const { parent, name } = splitKey(key);
    const at = row.vts + transitionRank(storageClass);
    const statements = [this.ms.versions.setStorageClassStatement(loc, storageClass, at)];
    const cur = await this.ms.objects.get(bucket.bucketId, parent, name);
    let indexAt = 0;
    if (cur?.entry.vid === row.vid) {
      indexAt = Math.max(at, cur.writetime + 1);
      statements.push(
        this.ms.objects.putStatement(bucket.bucketId, parent, name, { ...indexEntryOf(row), storageClass }, indexAt),
      );
    }
    await this.ms.applyPartitionMutation(statements);
    if (indexAt > 0) {
      this.store.indexRechecks.afterRepair(bucket.bucketId, parent, name, indexAt);
      const [newest] = await this.ms.versions.newest(bucket.bucketId, parent, name, 1);
      if (newest?.vid !== row.vid) await this.store.reconcileIndex(bucket.bucketId, parent, name, indexAt);
    }

    const kept = new Set(prepared.next.map((b) => b.blockId));
    const dropped = prepared.old.filter((b) => !kept.has(b.blockId));
    if (dropped.length > 0) await blocks.releaseRefs(blockRefs(dropped), ref);

    if (!(await this.ms.versions.get(loc))) {
      await blocks.releaseRefs(blockRefs(prepared.next), ref);
      await this.ms.versions.deleteManifest(row.vid);
      return 'gone';
    }
    return 'applied';
  }

  async discardTransition(prepared: PreparedTransition): Promise<void> {
    if (prepared.written.length > 0) await this.blocks.discard(blockRefs(prepared.written));
  }

  readUpload(bucket: BucketRow, key: string, uploadVid: string): Promise<UploadRow | undefined> {
    const { parent, name } = splitKey(key);
    return this.ms.uploads.get(bucket.bucketId, parent, name, uploadVid);
  }

  async abortUpload(bucket: BucketRow, key: string, uploadVid: string): Promise<AbortOutcome> {
    try {
      await this.multipart.abort(bucket.name, key, encodeId(uploadVid));
      return 'aborted';
    } catch (e) {
      if (e instanceof S3DomainError && (e.code === 'NoSuchUpload' || e.code === 'NoSuchBucket')) return 'gone';
      if (e instanceof S3DomainError && e.code === 'OperationAborted') return 'completing';
      throw e;
    }
  }

  dropLeftoverParts(bucket: BucketRow, uploadVid: string): Promise<number> {
    return this.multipart.dropLeftoverParts(bucket, uploadVid);
  }
}
