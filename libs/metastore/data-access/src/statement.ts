import { types } from 'cassandra-driver';
import type { CassandraClient } from '@ostore/shared/cassandra';

/** One CQL statement with its parameters, to be executed alone or inside a batch. */
export interface Statement {
  query: string;
  params: unknown[];
}

/** Cassandra's write timestamp type from a microsecond number. */
export function ts(micros: number): types.Long {
  return types.Long.fromNumber(micros);
}

export function num(v: unknown): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'number') return v;
  if (v instanceof types.Long) return v.toNumber();
  return Number(v);
}

export function optNum(v: unknown): number | undefined {
  return v === null || v === undefined ? undefined : num(v);
}

export function str(v: unknown): string {
  return v === null || v === undefined ? '' : String(v);
}

export function optStr(v: unknown): string | undefined {
  return v === null || v === undefined ? undefined : String(v);
}

export function mapOf(v: unknown): Record<string, string> {
  return v && typeof v === 'object' ? { ...(v as Record<string, string>) } : {};
}

/**
 * Runs statements that all write ONE partition key (possibly in several tables) as an unlogged
 * batch: Cassandra turns it into a single mutation, applied atomically on each replica, without
 * the batch log. Callers must not mix partitions here.
 */
export async function applyPartitionMutation(
  client: CassandraClient,
  statements: Statement[],
): Promise<void> {
  if (statements.length === 0) return;
  if (statements.length === 1) {
    await client.execute(statements[0].query, statements[0].params);
    return;
  }
  await client.batch(
    statements.map((s) => ({ query: s.query, params: s.params })),
    { logged: false },
  );
}

/** A clustering-column range on `name` (UTF-8 byte order, as Cassandra stores text). */
export interface NameRange {
  /** Exclusive lower bound. */
  gt?: string;
  /** Inclusive lower bound. */
  gte?: string;
  /** Exclusive upper bound. */
  lt?: string;
}

export function nameRangeCql(range: NameRange, params: unknown[]): string {
  let cql = '';
  if (range.gt !== undefined) {
    cql += ' AND name > ?';
    params.push(range.gt);
  } else if (range.gte !== undefined && range.gte !== '') {
    cql += ' AND name >= ?';
    params.push(range.gte);
  }
  if (range.lt !== undefined) {
    cql += ' AND name < ?';
    params.push(range.lt);
  }
  return cql;
}

/** Runs `fn` over `items` with at most `limit` calls in flight; rejects with the first error. */
export async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
