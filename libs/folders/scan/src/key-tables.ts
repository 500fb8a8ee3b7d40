import { CassandraPageSource, KeyedRow, PageSource, ScannedTable } from '@ostore/lifecycle/scan';
import type { Client } from 'cassandra-driver';
import { DirectoryKind } from '@ostore/folders/cleanup';
import { FOLDER_TABLE_OF, LEAF_TABLE_OF, str } from '@ostore/metastore/data-access';

/** A table partitioned by (bucket_id, parent) read for its keys only: the three leaf tables and the three folder tables. */
function keysOf(table: string): ScannedTable<KeyedRow> {
  return {
    table,
    columns: 'bucket_id, parent, name',
    decode: (row, token) => ({ token, bucketId: str(row['bucket_id']), parent: str(row['parent']), name: str(row['name']) }),
  };
}

/** A local page source per kind, over its leaf table or its folder table. */
export interface KindSource {
  readonly kind: DirectoryKind;
  readonly source: PageSource<KeyedRow>;
}

const KINDS: readonly DirectoryKind[] = ['object', 'version', 'upload'];

/** The local scan's sources of the keys below directories (objects, versions, uploads). */
export function leafSources(scanClient: Client): KindSource[] {
  return KINDS.map((kind) => ({ kind, source: new CassandraPageSource(scanClient, keysOf(LEAF_TABLE_OF[kind])) }));
}

/** The local scan's sources of the folder rows (object_folders, version_folders, upload_folders). */
export function folderSources(scanClient: Client): KindSource[] {
  return KINDS.map((kind) => ({ kind, source: new CassandraPageSource(scanClient, keysOf(FOLDER_TABLE_OF[kind])) }));
}
