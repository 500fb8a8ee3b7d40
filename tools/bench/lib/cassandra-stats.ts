/**
 * Per-table request counts of one keyspace from Cassandra's virtual tables
 * (system_views.coordinator_{read,write,scan}_latency), so a phase's Cassandra work can be put
 * per S3 request: "each PUT did 3 writes to block_refs, 2 reads of objects…". Only the bench's own
 * keyspace counts, so other users of the shared stack do not blur it.
 */

export interface TableCounts {
  reads: number;
  writes: number;
  scans: number;
}

export type KeyspaceCounts = Map<string, TableCounts>;

export interface CassandraClient {
  connect(): Promise<void>;
  execute(query: string, params?: unknown[], options?: Record<string, unknown>): Promise<{ rows: Record<string, unknown>[] }>;
  shutdown(): Promise<void>;
}

export class CassandraStats {
  private client?: CassandraClient;

  constructor(
    private readonly clientOptions: Record<string, unknown>,
    readonly keyspace: string,
  ) {}

  async snapshot(): Promise<KeyspaceCounts> {
    if (!this.client) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const cassandra = require('cassandra-driver');
      this.client = new cassandra.Client({ ...this.clientOptions, keyspace: undefined }) as CassandraClient;
      await this.client.connect();
    }
    const counts: KeyspaceCounts = new Map();
    for (const kind of ['read', 'write', 'scan'] as const) {
      const rs = await this.client.execute(`SELECT table_name, count FROM system_views.coordinator_${kind}_latency WHERE keyspace_name = ?`, [this.keyspace], { prepare: false });
      for (const row of rs.rows) {
        const t = counts.get(String(row.table_name)) ?? { reads: 0, writes: 0, scans: 0 };
        t[`${kind}s`] = Number(String(row.count));
        counts.set(String(row.table_name), t);
      }
    }
    return counts;
  }

  async close(): Promise<void> {
    await this.client?.shutdown().catch(() => undefined);
    this.client = undefined;
  }
}

/** after − before, per table; tables without any change are left out. */
export function diffCounts(before: KeyspaceCounts, after: KeyspaceCounts): KeyspaceCounts {
  const out: KeyspaceCounts = new Map();
  for (const [table, a] of after) {
    const b = before.get(table) ?? { reads: 0, writes: 0, scans: 0 };
    const d = { reads: a.reads - b.reads, writes: a.writes - b.writes, scans: a.scans - b.scans };
    if (d.reads || d.writes || d.scans) out.set(table, d);
  }
  return out;
}

/** "objects r1.00 w2.00, block_refs w3.00 …" per S3 request, busiest table first. */
export function perRequest(delta: KeyspaceCounts, requests: number): { table: string; reads: number; writes: number; scans: number }[] {
  if (!(requests > 0)) return [];
  return [...delta.entries()]
    .map(([table, d]) => ({ table, reads: d.reads / requests, writes: d.writes / requests, scans: d.scans / requests }))
    .sort((x, y) => y.reads + y.writes + y.scans - (x.reads + x.writes + x.scans));
}

/** S3 requests by operation from the gateway's Prometheus text (`ostore_s3_requests_total`). */
export function s3RequestsByOperation(metricsText: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of metricsText.split('\n')) {
    const m = /^ostore_s3_requests_total\{([^}]*)\}\s+([\d.eE+-]+)/.exec(line);
    if (!m) continue;
    const op = /operation="([^"]*)"/.exec(m[1])?.[1] ?? '?';
    out[op] = (out[op] ?? 0) + Number(m[2]);
  }
  return out;
}

export function diffOps(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [op, n] of Object.entries(after)) {
    const d = n - (before[op] ?? 0);
    if (d > 0) out[op] = d;
  }
  return out;
}
