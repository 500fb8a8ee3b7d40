import { alice, harness, Harness, put } from './support';

/**
 * A start-after / marker 1,000 directory levels deep (S3 keys reach 1,024 bytes) on the real
 * tables. Before, the walk queried every level of the marker's path (two queries each, one
 * after the other: 1.3 s); with a delimiter it now starts after the marker's CommonPrefix at the
 * prefix's level, and without one it climbs with its queries pipelined.
 */
describe('listing after a deep marker (Cassandra)', () => {
  let h: Harness;
  const B = 'deep-marker';
  const deep = '/'.repeat(1000) + 'k';

  beforeAll(async () => {
    h = await harness('deepmarker');
    await h.core.buckets.create({ name: B, owner: alice, location: '', acl: 'private' });
    for (const k of [deep, 'a/x', 'z/y', 'zz']) await put(h.core, B, k, '');
  });
  afterAll(() => h?.close());

  const timed = async (after: string, delimiter?: string) => {
    const started = performance.now();
    const res = await h.core.objects.list({ bucket: B, after, delimiter, maxKeys: 100 });
    return { ms: performance.now() - started, keys: res.contents.map((c) => c.key), prefixes: res.commonPrefixes };
  };

  it('with a delimiter, costs what a shallow marker costs', async () => {
    await timed('/', '/'); // warm the prepared statements
    const shallow = await timed('/', '/');
    const deepRun = await timed(deep, '/');
    expect(deepRun.keys).toEqual(['zz']);
    expect(deepRun.prefixes).toEqual(['a/', 'z/']);
    expect(deepRun).toMatchObject({ keys: shallow.keys, prefixes: shallow.prefixes });
    // the same handful of queries: well under the 1.3 s of a query pair per level
    expect(deepRun.ms).toBeLessThan(Math.max(200, shallow.ms * 5));
  });

  // Every level of the path may hold keys after the marker, so they are all read, 32 levels per
  // page: the pages (each continued from the marker it returns) list what follows, in order.
  it('without a delimiter, lists right after climbing all 1,000 levels, over pages that end at the level budget', async () => {
    const keys: string[] = [];
    let after: string | undefined = deep;
    for (let guard = 0; guard < 100 && after !== undefined; guard++) {
      const res = await h.core.objects.list({ bucket: B, after, maxKeys: 100 });
      keys.push(...res.contents.map((c) => c.key));
      after = res.isTruncated ? (res.nextMarkerNeeded ? res.nextAfter : keys[keys.length - 1]) : undefined;
    }
    expect(after).toBeUndefined();
    expect(keys).toEqual(['a/x', 'z/y', 'zz']);
  });
});
