import type { HostSnapshot } from '@ostore/stats/snapshot';
import { ScanStatus } from './scan-position';

/** The tables a scanner scans; the `handler` of a snapshot row. */
export type ScanHandler = 'versions' | 'uploads' | 'block_refs';

/** What a pass counted so far (the snapshot's `stat`). Survives restarts with the position. */
export interface ScanStats {
  /** Rows read (hidden ones included). */
  rows: number;
  /** Objects (versions) or keys (uploads) looked at. */
  objects: number;
  /** Candidates found (one per object with at least one due action, or per upload). */
  candidates: number;
  /** Versions whose lifecycle action is overdue by more than the grace, per bucket name. */
  overdue: Record<string, number>;
  /** Seconds spent reading, summed over the segments of a resumed pass. */
  activeSeconds: number;
  /** Times the pass was resumed after a stop or a crash. */
  resumes: number;
  /**
   * The usage snapshot counted so far (@ostore/stats/snapshot's HostSnapshot, stored through its
   * codec): saved with the position, so a resumed pass counts every version once. Absent when the
   * pass does not count one, or resumed from a state that had none (that pass writes no snapshot).
   */
  usage?: HostSnapshot;
}

export function emptyStats(): ScanStats {
  return { rows: 0, objects: 0, candidates: 0, overdue: {}, activeSeconds: 0, resumes: 0 };
}

/** One pass of one scanner over one table: a row of `scan_state`. */
export interface ScanSnapshot {
  /** The scanner's identity (by default its Cassandra node's host id). */
  readonly source: string;
  /** The scanned keyspace. */
  readonly ks: string;
  readonly handler: ScanHandler;
  /** When the pass started. */
  readonly ts: Date;
  readonly status: ScanStatus;
  readonly stat: ScanStats;
}

/** Where scan positions are kept (Cassandra's `scan_state`; in memory in tests). */
export abstract class ScanStateStore {
  /** The newest pass of this scanner over this table, if any. */
  abstract latest(source: string, ks: string, handler: ScanHandler): Promise<ScanSnapshot | undefined>;
  /** Records a pass's position and counters (the whole row, every time). */
  abstract save(snapshot: ScanSnapshot): Promise<void>;
}
