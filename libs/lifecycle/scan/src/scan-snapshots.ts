import { Client, types } from 'cassandra-driver';
import type { UploadsRepository, VersionRow } from '@ostore/metastore/data-access';
import { DEFAULT_LOOKBACK_MS, emptyHostSnapshot, SnapshotAccumulator } from '@ostore/stats/snapshot';
import type { SnapshotStore } from '@ostore/stats/snapshot-store';
import { VERSIONS_TABLE } from './cassandra-page-source';
import { ScanLog } from './local-scanner';
import { ScanHandler, ScanStats } from './scan-state';

/** Where a pass's snapshot goes and whose it is. */
export interface ScanSnapshotSettings {
  readonly source: string;
  readonly keyspace: string;
  /** Per-window sums kept for versions this recent before the cut (the combiner's tolerance between hosts' passes). */
  readonly lookbackMs?: number;
}

/**
 * The usage snapshot a pass counts (seed 000: per host and scanned table, `stat` in scan_state,
 * status = the key the scan stopped at or `completed`). The counters live in `ScanStats.usage`,
 * saved with the position at every checkpoint and only ever for whole objects, so a resumed pass
 * goes on from exactly what it had counted: every version is counted once. A completed pass's
 * snapshot is recorded in `host_snapshots` (unless a pass of the same cut completed before it: the
 * first stays), where the stats app combines the hosts' snapshots.
 */
export class ScanSnapshots {
  constructor(
    private readonly store: SnapshotStore,
    private readonly settings: ScanSnapshotSettings,
    private readonly log: ScanLog,
  ) {}

  /**
   * A fresh pass starts an empty snapshot; a resumed one goes on with its saved one (none: it writes
   * none). `blocks`: the pass counts blocks (its snapshot carries block totals, which tell the
   * combiner that it counts no usage and has no say in the common cut).
   */
  started(stats: ScanStats, passTs: Date, resumed: boolean, blocks = false): void {
    if (!resumed) {
      stats.usage = emptyHostSnapshot(passTs.getTime(), this.settings.lookbackMs ?? DEFAULT_LOOKBACK_MS);
      if (blocks) stats.usage.blocks = { blocks: 0, refs: 0, maxRefs: 0 };
    }
    else if (!stats.usage) this.log.warn('resumed pass has no readable usage snapshot; this pass writes none', {});
  }

  /** The accumulator over the pass's snapshot, if it counts one. */
  counter(stats: ScanStats): SnapshotAccumulator | undefined {
    return stats.usage ? new SnapshotAccumulator(stats.usage) : undefined;
  }

  /** Records the completed pass's snapshot for the stats app. */
  async completed(handler: ScanHandler, stats: ScanStats, passTs: Date): Promise<void> {
    if (!stats.usage) return;
    const snapshot = new SnapshotAccumulator(stats.usage).finish();
    const saved = await this.store.saveHostSnapshot(this.settings.keyspace, { source: this.settings.source, handler, passTs, snapshot });
    // the first completed pass of a cut stays the host's snapshot until the cut moves (README, "How exact")
    if (!saved)
      this.log.info('usage snapshot kept: an earlier pass of the same cut stays', {
        table: handler,
        cut: new Date(snapshot.cutMs).toISOString(),
        passStartedAt: passTs.toISOString(),
      });
  }
}

/** The part rows of an upload: what an incomplete upload holds (a metastore UploadsRepository fits). */
export interface UploadPartSource {
  allPartRows(uploadId: string): AsyncIterable<{ size: number; lastModified: Date }>;
}

/** Sums of an upload's part rows, each with its time (every stored part row was one `store` delta). */
export async function partsOf(parts: UploadPartSource | UploadsRepository, uploadId: string): Promise<{ size: number; atMs: number }[]> {
  const out: { size: number; atMs: number }[] = [];
  for await (const p of parts.allPartRows(uploadId)) out.push({ size: p.size, atMs: p.lastModified.getTime() });
  return out;
}

/**
 * The rest of a long version history, for the snapshot only: the scan reads the window of an
 * object (current + 100 noncurrent) and skips past the rest; the snapshot still counts every
 * version, so it reads the versions after the last row seen with one paged query of that key
 * (through the pinned session, at ONE, as the scan).
 */
export class VersionTail {
  private readonly cql: string;

  constructor(
    private readonly client: Client,
    private readonly fetchSize: number,
  ) {
    this.cql = `SELECT token(bucket_id, parent) AS t, ${VERSIONS_TABLE.columns} FROM versions WHERE bucket_id = ? AND parent = ? AND name = ? AND (vts, vid) < (?, ?)`;
  }

  /** The visible versions of the key older than `last` (null rows after the first one seen are hidden, as in the builder). */
  async visibleAfter(key: { bucketId: string; parent: string; name: string }, last: VersionRow, seenNull: boolean): Promise<VersionRow[]> {
    const out: VersionRow[] = [];
    let nullSeen = seenNull;
    let pageState: string | undefined;
    do {
      const rs = await this.client.execute(
        this.cql,
        [key.bucketId, key.parent, key.name, types.Long.fromString(String(last.vts)), last.vid],
        { prepare: true, fetchSize: this.fetchSize, pageState, consistency: types.consistencies.one, isIdempotent: true },
      );
      for (const r of rs.rows) {
        const row = VERSIONS_TABLE.decode(r, 0n);
        if (row.isNull) {
          const visible = !nullSeen && !row.isGhost;
          nullSeen = true;
          if (!visible) continue;
        }
        out.push(row);
      }
      pageState = rs.pageState ?? undefined;
    } while (pageState);
    return out;
  }
}
