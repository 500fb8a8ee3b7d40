import { forEachLimited, isTooManyTombstones, ts } from '@ostore/metastore/data-access';
import { alice, harness, Harness, put } from './support';

const TOMBSTONES = 120_000; // more than Cassandra's tombstone_failure_threshold (100,000) per read
const pad = (i: number) => String(i).padStart(6, '0');

/**
 * A directory in which a run of more adjacent keys than tombstone_failure_threshold was deleted
 * (what a lifecycle rule over one prefix leaves in its partition until compaction, gc_grace_seconds
 * later): every single read of the `objects` index crossing the run fails on the node, and the
 * listing reads around it in slices. The deletions are written straight as the index deletes
 * they are (one row tombstone per key), so the spec runs in seconds.
 */
describe('listing a directory with a run of tombstones longer than the failure threshold', () => {
  let h: Harness;
  let bucketId: string;
  const B = 'wide-tombstones';
  const before = ['wide/a-0', 'wide/a-1', 'wide/a-2'];
  const after = ['wide/keep-0', 'wide/keep-1', 'wide/keep-2', 'wide/keep-3'];

  beforeAll(async () => {
    h = await harness('widetomb');
    bucketId = (await h.core.buckets.create({ name: B, owner: alice, location: '', acl: 'private' }))
      .bucketId;
    for (const k of [...before, ...after, 'wide/sub/x']) await put(h.core, B, k, 'v');
    // the run: `wide/exp-000000` … one row tombstone each, in single-partition unlogged batches
    const at = Date.now() * 1000;
    const batches: number[] = [];
    for (let i = 0; i < TOMBSTONES; i += 250) batches.push(i);
    await forEachLimited(batches, 8, async (from) => {
      // the index row and the version row of each key, as an unversioned deletion leaves them
      const statements = Array.from({ length: Math.min(250, TOMBSTONES - from) }, (_, j) => [
        h.ms.objects.deleteStatement(bucketId, 'wide/', `exp-${pad(from + j)}`, at),
        {
          query: 'DELETE FROM versions USING TIMESTAMP ? WHERE bucket_id = ? AND parent = ? AND name = ?',
          params: [ts(at), bucketId, 'wide/', `exp-${pad(from + j)}`],
        },
      ]).flat();
      await h.client.batch(statements, { logged: false });
    });
  }, 300_000);
  afterAll(() => h.close());

  it('fails as one read on the node (the case the slices exist for)', async () => {
    const err = await h.client
      .execute('SELECT name FROM objects WHERE bucket_id = ? AND parent = ? AND name > ? LIMIT 10', [
        bucketId,
        'wide/',
        'a-2',
      ])
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeDefined();
    expect(isTooManyTombstones(err)).toBe(true);
  });

  it('lists the directory across the run, in S3 order, from the start and from inside the run', async () => {
    const first = await h.core.objects.list({ bucket: B, prefix: 'wide/', delimiter: '/', maxKeys: 1000 });
    expect(first.contents.map((c) => c.key)).toEqual([...before, ...after]);
    expect(first.commonPrefixes).toEqual(['wide/sub/']);
    expect(first.isTruncated).toBe(false);

    const middle = await h.core.objects.list({
      bucket: B,
      prefix: 'wide/',
      delimiter: '/',
      after: `wide/exp-${pad(TOMBSTONES / 2)}`,
      maxKeys: 1000,
    });
    expect(middle.contents.map((c) => c.key)).toEqual(after);

    // page by page, two keys a page: the page boundary right before the run
    const walked: string[] = [];
    let token: string | undefined;
    for (;;) {
      const page = await h.core.objects.list({ bucket: B, prefix: 'wide/', maxKeys: 2, after: token });
      walked.push(...page.contents.map((c) => c.key));
      if (!page.isTruncated) break;
      token = page.nextAfter;
    }
    expect(walked).toEqual([...before, ...after, 'wide/sub/x']);
  }, 120_000);

  it('lists the versions of the directory across the run too', async () => {
    const res = await h.core.objects.listVersions({ bucket: B, prefix: 'wide/', delimiter: '/', maxKeys: 1000 });
    expect(res.versions.map((v) => v.key)).toEqual([...before, ...after]);
    expect(res.commonPrefixes).toEqual(['wide/sub/']);
  }, 120_000);
});
