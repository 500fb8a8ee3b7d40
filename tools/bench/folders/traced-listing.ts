import { types } from 'cassandra-driver';
import type { CassandraClient } from '@ostore/shared/cassandra';

/** system_traces has replication factor 2: on a one-node stack it is readable at ONE only. */
const ONE = { consistency: types.consistencies.one };

/** Cassandra's own account of one listing: its queries and what their reads met, summed from tracing. */
export interface TracedWork {
  /** Traced query executions (not preparations) during the listing. */
  queries: number;
  /** Of those, the ones reading object_folders. */
  folderQueries: number;
  /** "Read N live rows" summed over every read of the listing. */
  liveRows: number;
  /** "... and M tombstone cells" summed over every read of the listing. */
  tombstones: number;
  /** The same two, for object_folders reads only. */
  folderLiveRows: number;
  folderTombstones: number;
}

/**
 * Runs `list` with every query traced (`nodetool settraceprobability 1`) and sums the
 * "Read N live rows and M tombstone cells" events of the sessions that started in its window, as
 * apps/scanner/test/folder-tombstones.int-spec.ts does. Tracing is written asynchronously: waits
 * (60 s deadline) until every session of the window has finished and recorded its reads. Run
 * one traced listing at a time: the windows must not overlap.
 */
export async function tracedListing(db: CassandraClient, nodetool: (args: string[]) => string, list: () => Promise<unknown>): Promise<TracedWork> {
  const from = new Date(Date.now() - 5);
  nodetool(['settraceprobability', '1']);
  try {
    await list();
  } finally {
    nodetool(['settraceprobability', '0']);
  }
  const to = new Date(Date.now() + 5);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const sessions = (await db.driver.execute('SELECT session_id, started_at, duration, request, parameters FROM system_traces.sessions', [], ONE)).rows.filter((s) => {
      const at = s['started_at'] as Date;
      return at >= from && at <= to && String(s['request']).startsWith('Execute');
    });
    const w: TracedWork = { queries: sessions.length, folderQueries: 0, liveRows: 0, tombstones: 0, folderLiveRows: 0, folderTombstones: 0 };
    let complete = sessions.length > 0;
    for (const s of sessions) {
      if (s['duration'] === null) complete = false;
      const folders = String((s['parameters'] as Record<string, string> | null)?.['query'] ?? '').includes('object_folders');
      if (folders) w.folderQueries++;
      const events = await db.driver.execute('SELECT activity FROM system_traces.events WHERE session_id = ?', [s['session_id']], { ...ONE, prepare: true });
      const reads = events.rows.map((e) => /Read (\d+) live rows and (\d+) tombstone cells/.exec(e['activity'] as string)).filter((m) => m !== null);
      if (reads.length === 0) complete = false;
      for (const m of reads) {
        w.liveRows += Number(m![1]);
        w.tombstones += Number(m![2]);
        if (folders) {
          w.folderLiveRows += Number(m![1]);
          w.folderTombstones += Number(m![2]);
        }
      }
    }
    if (complete) return w;
    if (Date.now() > deadline) throw new Error(`traces of the listing incomplete after 60 s (${sessions.length} sessions)`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
