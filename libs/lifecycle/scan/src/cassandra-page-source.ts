import { Client, types } from 'cassandra-driver';
import { NameRange, nameRangeCql, str, versionRowOf } from '@ostore/metastore/data-access';
import { KeyedRow, PageSource, RowPage } from './page-source';
import { ScannedUploadRow, ScannedVersionRow } from './scanned-object';
import { TokenSpan } from './token-ring';

/** A scanned table: its name, the columns read and how a row is decoded. */
export interface ScannedTable<T extends KeyedRow> {
  readonly table: string;
  readonly columns: string;
  decode(row: types.Row, token: bigint): T;
}

/**
 * The columns of `versions` the scan needs (owner, etag, part count are not read: fewer bytes per
 * row), decoded by the metastore's own `versionRowOf`.
 */
export const VERSIONS_TABLE: ScannedTable<ScannedVersionRow> = {
  table: 'versions',
  columns: 'bucket_id, parent, name, vts, vid, is_null, is_delete_marker, is_ghost, size, last_modified, storage_class',
  decode: (row, token) => Object.assign(versionRowOf(row), { token }),
};

export const UPLOADS_TABLE: ScannedTable<ScannedUploadRow> = {
  table: 'uploads',
  columns: 'bucket_id, parent, name, upload_id, initiated, completed',
  decode: (row, token) => ({
    token,
    bucketId: str(row['bucket_id']),
    parent: str(row['parent']),
    name: str(row['name']),
    uploadId: str(row['upload_id']),
    initiated: (row['initiated'] as Date | null) ?? new Date(0),
    completed: row['completed'] === true,
  }),
};

/**
 * The scan's queries over a driver session that is pinned to the local node (see
 * PinnedHostPolicy), at consistency ONE:
 *
 * - ONE, because the node coordinating the read is itself the primary replica of every range it
 *   is asked for, and Cassandra orders a range read's replicas by proximity with the coordinator
 *   first: the read is served from local SSTables, with no digest requests to other replicas
 *   and no read repair. What a missed write or a not-yet-replicated tombstone makes it see
 *   differently from a quorum is harmless: candidates are hints the scheduler re-reads at
 *   QUORUM/SERIAL before acting, and the next pass sees what this one missed.
 * - Range queries on `token(bucket_id, parent)`, one span at a time, paged by the driver
 *   (`fetchSize` rows, `pageState` to continue): each page is one bounded read command. Every
 *   statement is prepared, idempotent (plain reads), and carries the token bounds as bigint.
 */
export class CassandraPageSource<T extends KeyedRow> implements PageSource<T> {
  private readonly rangeCql: string;
  private readonly partitionCql: string;
  private readonly selectCql: string;

  constructor(
    private readonly client: Client,
    private readonly spec: ScannedTable<T>,
    private readonly consistency = types.consistencies.one,
  ) {
    const select = `SELECT token(bucket_id, parent) AS t, ${spec.columns} FROM ${spec.table}`;
    this.selectCql = select;
    this.rangeCql = `${select} WHERE token(bucket_id, parent) > ? AND token(bucket_id, parent) <= ?`;
    this.partitionCql = `${select} WHERE bucket_id = ? AND parent = ? AND name > ?`;
  }

  range(span: TokenSpan, fetchSize: number, pageState?: string): Promise<RowPage<T>> {
    return this.page(this.rangeCql, [long(span.start), long(span.end)], fetchSize, pageState);
  }

  partition(
    key: { bucketId: string; parent: string },
    afterName: string,
    fetchSize: number,
    pageState?: string,
  ): Promise<RowPage<T>> {
    return this.page(this.partitionCql, [key.bucketId, key.parent, afterName], fetchSize, pageState);
  }

  async partitionSlice(key: { bucketId: string; parent: string }, range: NameRange, limit: number): Promise<T[]> {
    const params: unknown[] = [key.bucketId, key.parent];
    const cql = `${this.selectCql} WHERE bucket_id = ? AND parent = ?${nameRangeCql(range, params)} LIMIT ?`;
    params.push(limit);
    const rs = await this.client.execute(cql, params, { prepare: true, consistency: this.consistency, isIdempotent: true });
    return rs.rows.map((r) => this.spec.decode(r, BigInt((r['t'] as types.Long).toString())));
  }

  private async page(cql: string, params: unknown[], fetchSize: number, pageState?: string): Promise<RowPage<T>> {
    const rs = await this.client.execute(cql, params, {
      prepare: true,
      fetchSize,
      pageState,
      consistency: this.consistency,
      isIdempotent: true,
    });
    const rows = rs.rows.map((r) => this.spec.decode(r, BigInt((r['t'] as types.Long).toString())));
    return { rows, pageState: rs.pageState ?? undefined };
  }
}

function long(token: bigint): types.Long {
  return types.Long.fromString(token.toString());
}
