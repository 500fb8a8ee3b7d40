import { isRecentGeneration, ParentBudget } from '@ostore/folders/cleanup';
import { DirectoryRef, FolderCleanupRepository } from '@ostore/metastore/data-access';
import type { FolderCandidate } from '@ostore/queue/contracts';
import type { Clock } from '@ostore/shared/clock';

/** The write-timestamp rule of FolderCache (@ostore/s3/core) as the applier keeps it. */
export interface EmptyFolderSettings {
  /** The gateways' folder-row cache TTL (S3_FOLDER_CACHE_MS). */
  readonly folderCacheTtlMs: number;
  /** Clock skew allowed between this scheduler and any gateway. */
  readonly skewMs: number;
  /** How many of the newest filter generations a candidate may come from (default 2: the current one and the one before). */
  readonly recentGenerations?: number;
  /** How long the newest generation read from Cassandra is reused (default 5 s). */
  readonly generationCacheMs?: number;
}

/** Where the applier learns the newest filter generation (FolderFilterRepository of @ostore/metastore/data-access). */
export interface NewestGeneration {
  latestGeneration(): Promise<{ readonly generation: number } | undefined>;
}

/** What became of one candidate: deleted, or why not. */
export type DeleteOutcome = 'deleted' | 'not-empty' | 'raced' | 'recently-written' | 'parent-budget' | 'gone' | 'stale-generation';

/**
 * Decides one FolderCandidate (a directory the scanners' filter says has nothing below it) again
 * and deletes its folder row:
 *
 * 0. The candidate must come from one of the newest filter generations (isRecentGeneration):
 *    a candidate of an old generation, or without one, is skipped ('stale-generation'), so a
 *    stale filter never causes a deletion.
 * 1. A bounded number of deletions per parent partition per window (ParentBudget): the soft
 *    cleanup; a candidate over the budget waits for a later cycle.
 * 2. At T (the clock, taken before anything is read), the directory must still be empty: no
 *    key in its leaf partition (a SERIAL read) and no child folder row (nested empty directories
 *    therefore go bottom-up, one level per cycle at most).
 * 3. The row is deleted with write timestamp T − folder-cache TTL − skew (the contract of
 *    FolderCache in @ostore/s3/core): every gateway that wrote the row after T, or skipped
 *    writing it because it had written it within its TTL, wins over the deletion.
 * 4. Emptiness is checked again after the deletion: a writer whose folder write landed earlier
 *    than that timestamp but whose key arrived after step 2 had its row deleted, and gets it back
 *    (written now). So a directory that received an object since the filter was built is never
 *    left without its row.
 */
export class EmptyFolderApplier {
  constructor(
    private readonly repo: FolderCleanupRepository,
    private readonly budget: ParentBudget,
    private readonly settings: EmptyFolderSettings,
    private readonly clock: Clock,
    private readonly generations: NewestGeneration,
  ) {}

  private newest?: { generation: number | undefined; readAtMs: number };

  private async newestGeneration(): Promise<number | undefined> {
    const now = this.clock.nowMs();
    if (!this.newest || now - this.newest.readAtMs >= (this.settings.generationCacheMs ?? 5000) || now < this.newest.readAtMs)
      this.newest = { generation: (await this.generations.latestGeneration())?.generation, readAtMs: now };
    return this.newest.generation;
  }

  async apply(c: FolderCandidate): Promise<DeleteOutcome> {
    if (!isRecentGeneration(c.generation, await this.newestGeneration(), this.settings.recentGenerations ?? 2)) return 'stale-generation';
    const d: DirectoryRef = { kind: c.kind, bucketId: c.bucketId, parent: c.parent, name: c.name };
    const parentKey = `${c.kind}\u0000${c.bucketId}\u0000${c.parent}`;
    const t = this.clock.nowMs();
    if (!this.budget.take(parentKey, t)) return 'parent-budget';
    const giveBack = (o: DeleteOutcome) => {
      this.budget.giveBack(parentKey);
      return o;
    };
    if (!(await this.repo.rowExists(d))) return giveBack('gone');
    if (!(await this.repo.isEmpty(d))) return giveBack('not-empty');
    const atMs = t - this.settings.folderCacheTtlMs - this.settings.skewMs;
    await this.repo.deleteRow(d, atMs * 1000);
    const emptyAfter = await this.repo.isEmpty(d);
    const rowAfter = await this.repo.rowExists(d);
    if (!emptyAfter && !rowAfter) {
      await this.repo.restoreRow(d, this.clock.now());
      return 'raced';
    }
    if (rowAfter) return giveBack('recently-written');
    return 'deleted';
  }
}
