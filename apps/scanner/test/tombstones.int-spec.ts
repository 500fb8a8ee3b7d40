import {
  CassandraPageSource,
  MAX_TOKEN,
  MIN_TOKEN,
  ScannedVersionRow,
  TombstoneSkip,
  TokenRangeReader,
  VERSIONS_TABLE,
} from '@ostore/lifecycle/scan';
import { forEachLimited, ts } from '@ostore/metastore/data-access';
import { CassandraClient } from '@ostore/shared/cassandra';
import { FakeClock } from '@ostore/shared/clock/testing';
import { S3Core } from '@ostore/s3/core';
import { cassandraOptions, freshKeyspace } from '@ostore/testing';
import { alice, migrate, put, s3 } from './support';

const TOMBSTONES = 110_000; // more than Cassandra's tombstone_failure_threshold (100,000) per read
const pad = (i: number) => String(i).padStart(6, '0');

/**
 * What a lifecycle cleanup of one prefix leaves in a directory's `versions` partition until
 * compaction: a run of adjacent tombstones longer than tombstone_failure_threshold, so every read
 * crossing it fails on the node however small its page. The scan must not stall there: it isolates
 * the partition by token, finds its key from its first row and reads it in name slices (as
 * listings do), and reads every other partition of the ring.
 */
describe('local scan reads past a partition full of tombstones (real Cassandra)', () => {
  let core: S3Core;
  let db: CassandraClient;
  let bucketId: string;
  const others = ['a/x', 'b/y', 'c/z', 'wide/sub/w', 'z/1', 'z/2'];

  beforeAll(async () => {
    const keyspace = freshKeyspace('scantomb');
    await migrate(cassandraOptions(keyspace));
    ({ core, db } = await s3(cassandraOptions(keyspace), new FakeClock(Date.UTC(2026, 2, 1))));
    bucketId = (await core.buckets.create({ name: 'tomb', owner: alice, location: '', acl: 'private' })).bucketId;
    for (const k of [...others, 'wide/a-0', 'wide/keep-0']) await put(core, 'tomb', k, 'v');
    const at = Date.now() * 1000;
    const batches: number[] = [];
    for (let i = 0; i < TOMBSTONES; i += 250) batches.push(i);
    await forEachLimited(batches, 8, async (from) => {
      const statements = Array.from({ length: Math.min(250, TOMBSTONES - from) }, (_, j) => ({
        query: 'DELETE FROM versions USING TIMESTAMP ? WHERE bucket_id = ? AND parent = ? AND name = ?',
        params: [ts(at), bucketId, 'wide/', `exp-${pad(from + j)}`],
      }));
      await db.driver.batch(statements, { logged: false, prepare: true });
    });
  }, 300_000);
  afterAll(() => db?.shutdown());

  it('returns every live row of the ring once, in token order, the tombstoned partition included', async () => {
    const skips: TombstoneSkip[] = [];
    const reader = new TokenRangeReader<ScannedVersionRow>(
      new CassandraPageSource(db.driver, VERSIONS_TABLE),
      [{ start: MIN_TOKEN, end: MAX_TOKEN }],
      { token: MIN_TOKEN },
      1000,
      { onTombstoneSkip: (s) => skips.push(s) },
    );
    const rows: ScannedVersionRow[] = [];
    for (let page = await reader.nextPage(); page; page = await reader.nextPage()) rows.push(...page);
    const keys = rows.filter((r) => r.bucketId === bucketId).map((r) => `${r.parent}${r.name}`);
    expect([...keys].sort()).toEqual([...others, 'wide/a-0', 'wide/keep-0'].sort());
    expect(new Set(keys).size).toBe(keys.length);
    const tokens = rows.map((r) => r.token);
    expect(tokens).toEqual([...tokens].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(reader.tombstoneFailures).toBeGreaterThan(0);
    expect(skips).toEqual([]);
  }, 300_000);
});
