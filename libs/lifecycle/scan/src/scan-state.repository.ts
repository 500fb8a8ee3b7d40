import type { CassandraClient } from '@ostore/shared/cassandra';
import type { Clock } from '@ostore/shared/clock';
import { optStr, str } from '@ostore/metastore/data-access';
import { HostSnapshotCodec } from '@ostore/stats/snapshot';
import { decodeStatus, encodeStatus } from './scan-position';
import { emptyStats, ScanHandler, ScanSnapshot, ScanStateStore, ScanStats } from './scan-state';

/** Rows of finished passes live this long (the table's default too; see migration 004). */
export const SCAN_STATE_TTL_SECONDS = 7 * 86_400;

/**
 * `scan_state` (migration 004) through the app's ordinary session, at its configured consistency
 * (LOCAL_QUORUM by default): unlike the scan itself, the position must survive the loss of the
 * scanner's own node, and reads and writes here are one row per checkpoint.
 */
export class CassandraScanStateStore extends ScanStateStore {
  constructor(
    private readonly client: CassandraClient,
    private readonly clock: Clock,
  ) {
    super();
  }

  async latest(source: string, ks: string, handler: ScanHandler): Promise<ScanSnapshot | undefined> {
    const rs = await this.client.execute(
      `SELECT ts, status, stat FROM scan_state WHERE source = ? AND ks = ? AND handler = ? LIMIT 1`,
      [source, ks, handler],
    );
    const r = rs.first();
    if (!r) return undefined;
    return {
      source,
      ks,
      handler,
      ts: r['ts'] as Date,
      status: decodeStatus(optStr(r['status'])),
      stat: parseStats(str(r['stat'])),
    };
  }

  /** A whole-row INSERT with the TTL: never a partial update that could half-expire (seed 004). */
  async save(s: ScanSnapshot): Promise<void> {
    await this.client.execute(
      `INSERT INTO scan_state (source, ks, handler, ts, status, stat, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) USING TTL ?`,
      [s.source, s.ks, s.handler, s.ts, encodeStatus(s.status), JSON.stringify(encodeStats(s.stat)), this.clock.now(), SCAN_STATE_TTL_SECONDS],
    );
  }
}

function encodeStats(stat: ScanStats): unknown {
  const { usage, ...rest } = stat;
  return usage === undefined ? rest : { ...rest, usage: HostSnapshotCodec.encode(usage) };
}

/** An unreadable usage snapshot is dropped (that pass then writes none), never half-trusted. */
function parseStats(text: string): ScanStats {
  let parsed: Partial<ScanStats> & { usage?: unknown };
  try {
    parsed = JSON.parse(text) as Partial<ScanStats> & { usage?: unknown };
  } catch {
    return emptyStats();
  }
  const { usage, ...rest } = parsed;
  const stats: ScanStats = { ...emptyStats(), ...rest };
  if (usage !== undefined) {
    try {
      stats.usage = HostSnapshotCodec.decode(usage);
    } catch {
      // left out: see ScanStats.usage
    }
  }
  return stats;
}
