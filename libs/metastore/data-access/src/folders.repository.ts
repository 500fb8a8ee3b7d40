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
export class FoldersRepository {
  constructor(
    private readonly client: CassandraClient,
    readonly table: FolderTable,
  ) {}

  /** Upserts the rows (each in its own partition, so written in parallel, not batched). */
  async ensure(bucketId: string, rows: FolderRow[], at: Date): Promise<void> {
    await Promise.all(
      rows.map((r) =>
        this.client.execute(
          `INSERT INTO ${this.table} (bucket_id, parent, name, created_at) VALUES (?, ?, ?, ?)`,
          [bucketId, r.parent, r.name, at],
        ),
      ),
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
