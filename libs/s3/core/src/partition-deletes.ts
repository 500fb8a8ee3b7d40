import type { Metastore, NullRowRef, VersionLocator, VersionRow } from '@ostore/metastore/data-access';
import type { ContextLogger } from '@ostore/shared/observability';
import type { DeleteOutcome, DeleteResult, Owner } from './api';
import type { BucketKey } from './bucket-key';
import { splitKey } from './keys';
import { NULL_VERSION_ID, publicVersionIdOf } from './version-ids';
import { newVersionRow } from './version-mapping';
import { staleNullRows } from './null-rows';
import { type ConvergenceMetricsSink, NoopConvergenceMetrics } from './convergence-metrics';

/** Most keys of one directory partition read and written together (one `IN` read, one batch). */
export const PARTITION_DELETE_CHUNK = 250;
/** Directory partitions of one request worked on at the same time. */
const PARTITIONS_IN_FLIGHT = 4;
/** Manifest removals and usage reports of one chunk in flight at a time (each its own partition). */
const FOLLOW_UPS_IN_FLIGHT = 16;

/** What PartitionDeletes needs of the version store (VersionStore is one; no import of it here). */
export interface PartitionDeleteStore {
  newVid(kind: 'marker' | 'ghost'): { vts: number; vid: string };
  nowMicros(): number;
  ensureFolders(table: 'version_folders', bucketId: string, key: string, at: Date): Promise<void>;
  checkIndex(row: VersionRow): Promise<void>;
  readonly indexRechecks: { readonly sendBoundMicros: number };
  removeVersion(bucket: BucketKey, loc: VersionLocator | NullRowRef, isNull: boolean): Promise<unknown>;
  afterRemoval(bucket: BucketKey, loc: VersionLocator, row: { size: number; isDeleteMarker: boolean; isGhost: boolean; inlineBody?: boolean; noMetaRow?: boolean }): Promise<void>;
}

/**
 * DeleteObject without a version id for many keys at once (DeleteObjects), with the same
 * outcome per key as VersionStore.commit of a marker or ghost followed by its null convergence,
 * but with the Cassandra work shared by the keys of one directory partition `(bucket_id, parent)`:
 *   - unversioned: ONE read of the keys' newest rows (`name IN`) decides which keys get a ghost
 *     (those whose newest row exists and is not a ghost, as DeleteObject's own read does);
 *   - the version folders of the directory are ensured once (markers only; ghosts write none);
 *   - every key's marker or ghost, its null mirror and its `objects` delete go out as ONE
 *     unlogged single-partition batch (one mutation, each statement at the key's own vts);
 *   - null convergence: ONE `null_versions` read of the keys AFTER that mutation landed (the
 *     same "read after your own landing" rule as per key, so a racing null writer is still seen by
 *     one of the two), then every key whose single stale row has a summary loses it in ONE more
 *     batch; its manifest and usage event (same event id) follow per key. Of the removed versions
 *     whose body was in their row, ONE read after that batch landed (`vid IN`) finds which have a
 *     `version_meta` row at all (most small ones have none: rowOnlyMeta), and only those get its
 *     delete, instead of a tombstone per key. A key with several stale rows, or a row without a
 *     summary, goes through removeVersion as before.
 * Never a batch across partitions. A failed read or mutation fails the keys of its chunk only.
 */
export class PartitionDeletes {
  constructor(
    private readonly ms: Metastore,
    private readonly store: PartitionDeleteStore,
    private readonly ghostTtlSeconds: number,
    private readonly log: ContextLogger,
    private readonly convergence: ConvergenceMetricsSink = new NoopConvergenceMetrics(),
  ) {}

  /** Deletes `keys` (already validated) of one bucket; answers in the order of `keys` (a repeated key is deleted once). */
  async deleteLatest(bucket: BucketKey, owner: Owner, keys: readonly string[]): Promise<DeleteOutcome[]> {
    const byParent = new Map<string, string[]>();
    for (const key of new Set(keys)) {
      const { parent, name } = splitKey(key);
      const names = byParent.get(parent);
      if (names) names.push(name);
      else byParent.set(parent, [name]);
    }
    const chunks: { parent: string; names: string[] }[] = [];
    for (const [parent, names] of byParent)
      for (let i = 0; i < names.length; i += PARTITION_DELETE_CHUNK) chunks.push({ parent, names: names.slice(i, i + PARTITION_DELETE_CHUNK) });
    const byKey = new Map<string, DeleteOutcome>();
    await limited(chunks, PARTITIONS_IN_FLIGHT, async ({ parent, names }) => {
      try {
        const results = await this.chunk(bucket, owner, parent, names);
        names.forEach((n, i) => byKey.set(parent + n, { ok: true, result: results[i] }));
      } catch (error) {
        for (const n of names) byKey.set(parent + n, { ok: false, error });
      }
    });
    return keys.map((k) => byKey.get(k)!);
  }

  private async chunk(bucket: BucketKey, owner: Owner, parent: string, names: string[]): Promise<DeleteResult[]> {
    const { bucketId } = bucket;
    const kind = bucket.versioning === 'Enabled' || bucket.versioning === 'Suspended' ? 'marker' : 'ghost';
    const isNull = bucket.versioning !== 'Enabled';
    let targets = names;
    if (kind === 'ghost') {
      // DeleteObject's own read: nothing to hide when the newest row is absent or already a ghost
      const { newest } = await this.ms.versions.newestOfNames(bucketId, parent, names);
      targets = names.filter((n) => {
        const row = newest.get(n);
        return row !== undefined && !row.isGhost;
      });
      if (targets.length === 0) return names.map(() => ({ deleteMarker: false }));
    } else {
      // every key of the chunk has the same ancestors: their folder rows once, before the markers
      await this.store.ensureFolders('version_folders', bucketId, parent + names[0], new Date(Math.floor(this.store.nowMicros() / 1000)));
    }
    const rows = targets.map((n) => newVersionRow({ bucket, key: parent + n, kind, isNull, owner }, this.store.newVid(kind)));
    const statements = rows.flatMap((row) => [
      ...this.ms.versions.insertStatements(row, kind === 'ghost' ? this.ghostTtlSeconds : undefined),
      this.ms.objects.deleteStatement(bucketId, parent, row.name, row.vts),
    ]);
    const now = this.store.nowMicros();
    const late = rows.filter((r) => now - r.vts > this.store.indexRechecks.sendBoundMicros);
    await this.ms.applyPartitionMutation(statements);
    await Promise.all([
      ...late.map((row) =>
        this.store.checkIndex(row).catch((err: unknown) => {
          this.convergence.failed('index_check');
          this.log.warn('index check after commit failed', { bucket: bucket.name, key: parent + row.name, err: (err as Error).message });
        }),
      ),
      isNull
        ? this.convergeNulls(bucket, parent, rows).catch((err: unknown) => {
            this.convergence.failed('null_versions');
            this.log.warn('null version cleanup failed; the next write of the key or the scheduler (after a scan) retries it', {
              bucket: bucket.name,
              parent,
              keys: targets.length,
              err: (err as Error).message,
            });
          })
        : undefined,
    ]);
    if (kind === 'ghost') return names.map(() => ({ deleteMarker: false }));
    const byName = new Map(rows.map((r) => [r.name, r]));
    return names.map((n) => ({ versionId: isNull ? NULL_VERSION_ID : publicVersionIdOf(byName.get(n)!), deleteMarker: true }));
  }

  /**
   * VersionStore.convergeNulls for the keys of one partition whose null rows `own` were just
   * written: one read, one batch of removals.
   */
  private async convergeNulls(bucket: BucketKey, parent: string, own: readonly VersionRow[]): Promise<void> {
    const ownByName = new Map(own.map((r) => [r.name, r]));
    const nulls = await this.ms.versions.nullRowsOfNames(bucket.bucketId, parent, [...ownByName.keys()]);
    const single: NullRowRef[] = [];
    const several: NullRowRef[][] = [];
    for (const [name, refs] of nulls) {
      const stale = staleNullRows(refs, ownByName.get(name));
      if (stale.length === 1 && stale[0].summary) single.push(stale[0]);
      else if (stale.length > 0) several.push(stale);
    }
    const perKey = limited(several, FOLLOW_UPS_IN_FLIGHT, async (stale) => {
      for (const ref of stale) {
        const { summary: _summary, ...loc } = ref;
        await this.store.removeVersion(bucket, loc, true);
      }
    });
    const batched = (async () => {
      if (single.length === 0) return;
      const now = this.store.nowMicros();
      await this.ms.applyPartitionMutation(single.flatMap((ref) => this.ms.versions.deleteStatements(ref, true, Math.max(now, ref.vts + 1))));
      // read only now that the rows are gone: a metadata change (updateMeta) that wrote a
      // `version_meta` row before it could see the removal is seen here
      const inRow = single.filter((ref) => ref.summary!.bodyInRow && !ref.summary!.isDeleteMarker);
      // (the rows are gone already: if this read fails, every one gets its delete, as before it)
      const withMeta = await this.ms.versions.metaRowsOf(inRow.map((ref) => ref.vid)).catch(() => undefined);
      await limited(single, FOLLOW_UPS_IN_FLIGHT, (ref) => {
        const { summary, ...loc } = ref;
        const noMetaRow = summary!.bodyInRow && withMeta !== undefined && !withMeta.has(ref.vid);
        return this.store.afterRemoval(bucket, loc, { ...summary!, inlineBody: summary!.bodyInRow, noMetaRow });
      });
    })();
    const failed = (await Promise.allSettled([perKey, batched])).find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }
}

/** Runs `fn` over `items`, at most `limit` at a time; rejects with the first error once all have settled or stopped. */
async function limited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
