import type { NameRange } from '@ostore/metastore/data-access';
import { TokenSpan } from './token-ring';

/** A row of a table partitioned by (bucket_id, parent), with its partition's token. */
export interface KeyedRow {
  readonly token: bigint;
  readonly bucketId: string;
  readonly parent: string;
  readonly name: string;
}

/** One page of a query; `pageState` continues it (absent: the query is exhausted). */
export interface RowPage<T> {
  readonly rows: T[];
  readonly pageState?: string;
}

/** The two queries a local scan needs of a table partitioned by (bucket_id, parent). */
export interface PageSource<T extends KeyedRow> {
  /** Rows whose partition token is in (span.start, span.end], in token then clustering order. */
  range(span: TokenSpan, fetchSize: number, pageState?: string): Promise<RowPage<T>>;
  /** Rows of one partition whose name is greater than `afterName`, in clustering order. */
  partition(
    key: { bucketId: string; parent: string },
    afterName: string,
    fetchSize: number,
    pageState?: string,
  ): Promise<RowPage<T>>;
  /**
   * Up to `limit` rows of one partition whose name is in `range`, in clustering order, as one
   * bounded read (no paging): what the reader slices a partition into when a read of it gives up
   * on tombstones. Optional: without it such a partition's rest is left to a later pass.
   */
  partitionSlice?(key: { bucketId: string; parent: string }, range: NameRange, limit: number): Promise<T[]>;
}
