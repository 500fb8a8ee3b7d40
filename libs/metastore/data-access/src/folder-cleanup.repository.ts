import { CassandraClient, consistencyOf } from '@ostore/shared/cassandra';
import type { DirectoryKind } from '@ostore/folders/cleanup';
import type { FolderTable } from './folders.repository';
import { ts } from './statement';

/** The table of the keys below the directories of each folder index. */
export const LEAF_TABLE_OF: Readonly<Record<DirectoryKind, 'objects' | 'versions' | 'uploads'>> = {
  object: 'objects',
  version: 'versions',
  upload: 'uploads',
};
/** The folder index table of each kind. */
export const FOLDER_TABLE_OF: Readonly<Record<DirectoryKind, FolderTable>> = {
  object: 'object_folders',
  version: 'version_folders',
  upload: 'upload_folders',
};
const LEAVES = LEAF_TABLE_OF;
const FOLDERS = FOLDER_TABLE_OF;

/** A directory of one folder index: the row `name` of partition `parent` stands for `parent + name`. */
export interface DirectoryRef {
  readonly kind: DirectoryKind;
  readonly bucketId: string;
  readonly parent: string;
  /** The child segment with its '/'. */
  readonly name: string;
}

/**
 * What the scheduler needs to delete an empty directory's folder row.
 *
 * Emptiness of directory D of kind k: no row in k's leaf table (objects, versions or uploads)
 * partition (bucket, D), and no child folder row in k's folder table partition (bucket, D) — so
 * nested empty directories go bottom-up, a parent only once its children are gone. The leaf read
 * is SERIAL (it sees every committed or in-progress LWT, e.g. a conditional PUT's claim), the
 * children read a quorum one (folder rows are never written by Paxos).
 */
export class FolderCleanupRepository {
  constructor(private readonly client: CassandraClient) {}

  /** Whether directory `parent + name` has nothing below it in its index (see the class comment). */
  async isEmpty(d: DirectoryRef): Promise<boolean> {
    const dir = d.parent + d.name;
    const serial = consistencyOf(this.client.options.serialConsistency);
    const [leaf, child] = await Promise.all([
      this.client.execute(`SELECT name FROM ${LEAVES[d.kind]} WHERE bucket_id = ? AND parent = ? LIMIT 1`, [d.bucketId, dir], {
        consistency: serial,
      }),
      this.client.execute(`SELECT name FROM ${FOLDERS[d.kind]} WHERE bucket_id = ? AND parent = ? LIMIT 1`, [d.bucketId, dir]),
    ]);
    return leaf.rows.length === 0 && child.rows.length === 0;
  }

  /**
   * Deletes the folder row with write timestamp `atMicros`: every write of the row with a later
   * timestamp wins over it (see FolderCache of @ostore/s3/core for the bound callers must keep).
   */
  async deleteRow(d: DirectoryRef, atMicros: number): Promise<void> {
    await this.client.execute(`DELETE FROM ${FOLDERS[d.kind]} USING TIMESTAMP ? WHERE bucket_id = ? AND parent = ? AND name = ?`, [
      ts(atMicros),
      d.bucketId,
      d.parent,
      d.name,
    ]);
  }

  /** Whether the folder row exists (a quorum read). */
  async rowExists(d: DirectoryRef): Promise<boolean> {
    const rs = await this.client.execute(`SELECT name FROM ${FOLDERS[d.kind]} WHERE bucket_id = ? AND parent = ? AND name = ?`, [
      d.bucketId,
      d.parent,
      d.name,
    ]);
    return rs.rows.length > 0;
  }

  /** Writes the folder row again (now), e.g. when a writer raced the deletion. */
  async restoreRow(d: DirectoryRef, at: Date): Promise<void> {
    await this.client.execute(`INSERT INTO ${FOLDERS[d.kind]} (bucket_id, parent, name, created_at) VALUES (?, ?, ?, ?)`, [
      d.bucketId,
      d.parent,
      d.name,
      at,
    ]);
  }
}
