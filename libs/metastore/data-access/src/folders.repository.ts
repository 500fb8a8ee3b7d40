import type { CassandraClient } from '@ostore/shared/cassandra';
import { nameRangeCql, NameRange, str } from './statement';

export type FolderTable = 'object_folders' | 'version_folders' | 'upload_folders';

/** A folder row: directory `parent` has the child directory `parent + name` (`name` ends with '/'). */
export interface FolderRow {
  parent: string;
  name: string;
}

/**
 * The folder index tables (object_folders, version_folders, upload_folders), partitioned by parent
 * directory. Names keep their trailing '/', so a partition's clustering order is the order of the
 * keys below its folders.
 *
 * Folder rows are upserted on every write below them, with no read before the write (idempotent,
 * no Paxos); deleting an object never touches them. Empty folders are hidden by readers and removed
 * later by background work, which must re-check emptiness AFTER its delete and restore the row if
 * a writer raced it (a writer's upsert can land before the cleanup's delete).
 */
/**
 * Most folder-row writes of one `ensure` in flight at once. A key of 1,024 slashes has ~1,000 folder
 * rows per table; issued all at once (as before) they took half of a connection's 2,048 request
 * slots and delayed every other tenant's queries behind them.
 */
export const FOLDER_WRITE_CONCURRENCY = 16;

export class FoldersRepository {
  constructor(
    private readonly client: CassandraClient,
    readonly table: FolderTable,
  ) {}

  /**
   * Upserts the rows, at most FOLDER_WRITE_CONCURRENCY writes at a time. Rows of one partition (one
   * parent) go in one unlogged batch: a single-partition batch is one mutation, applied atomically
   * without the batch log; rows of different partitions are never batched together (that would
   * only move the fan-out to the coordinator).
   */
  async ensure(bucketId: string, rows: FolderRow[], at: Date): Promise<void> {
    const cql = `INSERT INTO ${this.table} (bucket_id, parent, name, created_at) VALUES (?, ?, ?, ?)`;
    const byParent = new Map<string, FolderRow[]>();
    for (const r of rows) {
      const group = byParent.get(r.parent);
      if (group) group.push(r);
      else byParent.set(r.parent, [r]);
    }
    await forEachBounded([...byParent.values()], FOLDER_WRITE_CONCURRENCY, (group) =>
      group.length === 1
        ? this.client.execute(cql, [bucketId, group[0].parent, group[0].name, at])
        : this.client.batch(group.map((r) => ({ query: cql, params: [bucketId, r.parent, r.name, at] })), { logged: false }),
    );
  }

  /** Child folder names (with their '/') of a directory, ascending, within `range`. */
  async page(bucketId: string, parent: string, range: NameRange, limit: number): Promise<string[]> {
    const params: unknown[] = [bucketId, parent];
    const cql = `SELECT name FROM ${this.table} WHERE bucket_id = ? AND parent = ?${nameRangeCql(range, params)} LIMIT ?`;
    params.push(limit);
    const rs = await this.client.execute(cql, params);
    return rs.rows.map((r) => str(r['name']));
  }
}

/** Runs `fn` over `items` with at most `limit` calls pending; rejects with the first failure. */
async function forEachBounded<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const item = items[next++];
      try {
        await fn(item);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
