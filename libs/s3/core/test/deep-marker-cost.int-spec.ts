import { modelList } from '../src/testing';
import { alice, harness, Harness, put } from './support';

/**
 * What a listing WITHOUT a delimiter costs Cassandra after a start key 10, 100 and 1,000 levels
 * deep (a valid 1,000-byte key of '/', even anonymous on a public-read bucket), counted on the
 * real session: every repository query goes through `CassandraClient.execute` (or `batch`), one
 * single-partition request each. It used to be two queries per level of the start key (~2,000 at
 * depth 1,000); now it is bounded by the listing level budget (32 levels) plus a binary search of
 * about log2(depth) folder-row reads, whatever the depth.
 */
describe('the Cassandra cost of a deep start key without a delimiter', () => {
  let h: Harness;
  const PLAIN = 'deep-cost-plain';
  const CHAINS = 'deep-cost-chains';
  const others = ['a/x', 'z/y', 'zz'];
  const chain = (depth: number) => '/'.repeat(depth) + 'k';
  const chainKeys = [...others, chain(10), chain(100), chain(1000), '/'.repeat(500) + 'mid'];
  /** Budget levels (two queries each), the binary search, the bucket row and the other keys' few directories. */
  const BOUND = 2 * 32 + Math.ceil(Math.log2(1001)) + 12;

  beforeAll(async () => {
    h = await harness('deepcost');
    for (const name of [PLAIN, CHAINS]) await h.core.buckets.create({ name, owner: alice, location: '', acl: 'private' });
    for (const k of others) await put(h.core, PLAIN, k, '');
    await h.core.multipart.create({ bucket: PLAIN, key: 'zz', owner: alice, meta: { userMeta: {} } });
    for (const k of chainKeys) await put(h.core, CHAINS, k, '');
    for (const k of chainKeys) await h.core.multipart.create({ bucket: CHAINS, key: k, owner: alice, meta: { userMeta: {} } });
  }, 300_000); // a fresh keyspace and ~1,600 folder rows: slow on a loaded box
  afterAll(() => h?.close());

  /** The Cassandra requests sent while `fn` runs, and its result. */
  async function counted<T>(fn: () => Promise<T>): Promise<{ result: T; queries: number }> {
    const execute = jest.spyOn(h.client, 'execute');
    const batch = jest.spyOn(h.client, 'batch');
    try {
      const result = await fn();
      return { result, queries: execute.mock.calls.length + batch.mock.calls.length };
    } finally {
      execute.mockRestore();
      batch.mockRestore();
    }
  }

  /** A ListObjectsV2 walk from `startAfter` to the end, following its continuation positions. */
  async function v2Pages(bucket: string, startAfter: string) {
    const pages: { keys: string[]; queries: number }[] = [];
    let from: { after?: string; afterGroup?: boolean } = { after: startAfter };
    for (let guard = 0; guard < 200; guard++) {
      const { result, queries } = await counted(() => h.core.objects.list({ bucket, ...from, resumable: true, maxKeys: 1000 }));
      pages.push({ keys: result.contents.map((c) => c.key), queries });
      if (!result.isTruncated) return pages;
      from = { after: result.nextAfter, afterGroup: result.nextAfterGroup };
    }
    throw new Error('the listing did not end');
  }

  /** Pages from `start` to the end, each continued from what the page itself returned (as a client does), with their keys and requests. */
  async function markerPages(start: string, page: (marker: { key: string; id?: string }) => Promise<{ keys: string[]; next?: { key: string; id?: string } }>) {
    const pages: { keys: string[]; queries: number }[] = [];
    let marker: { key: string; id?: string } | undefined = { key: start };
    for (let guard = 0; guard < 200 && marker; guard++) {
      const { result, queries } = await counted(() => page(marker!));
      pages.push({ keys: result.keys, queries });
      marker = result.next;
    }
    if (marker) throw new Error('the listing did not end');
    return pages;
  }

  /** ListObjects v1, ListObjectVersions and ListMultipartUploads over CHAINS, each continued from its own markers. */
  const markerListings = {
    v1: (m: { key: string }) =>
      h.core.objects.list({ bucket: CHAINS, after: m.key, maxKeys: 1000 }).then((r) => ({
        keys: r.contents.map((c) => c.key),
        // the client's rule: NextMarker when given (the core gives it when needed), else the last key
        next: r.isTruncated ? { key: r.nextMarkerNeeded ? r.nextAfter! : r.contents[r.contents.length - 1].key } : undefined,
      })),
    versions: (m: { key: string; id?: string }) =>
      h.core.objects.listVersions({ bucket: CHAINS, keyMarker: m.key, versionIdMarker: m.id, maxKeys: 1000 }).then((r) => ({
        keys: r.versions.map((v) => v.key),
        next: r.isTruncated ? { key: r.nextKeyMarker!, id: r.nextVersionIdMarker } : undefined,
      })),
    uploads: (m: { key: string; id?: string }) =>
      h.core.multipart.listUploads({ bucket: CHAINS, keyMarker: m.key, uploadIdMarker: m.id, maxUploads: 1000 }).then((r) => ({
        keys: r.uploads.map((u) => u.key),
        next: r.isTruncated ? { key: r.nextKeyMarker!, id: r.nextUploadIdMarker } : undefined,
      })),
  };

  it.each(Object.keys(markerListings) as (keyof typeof markerListings)[])(
    'an existing chain of 10, 100 and 1,000 levels: every %s page after a marker costs at most the bound, and the pages keep S3 order',
    async (listing) => {
      const firstPages: number[] = [];
      for (const depth of [10, 100, 1000]) {
        const pages = await markerPages(chain(depth), markerListings[listing]);
        expect(pages.flatMap((p) => p.keys)).toEqual(modelList(chainKeys, { after: chain(depth) }));
        const most = Math.max(...pages.map((p) => p.queries));
        expect({ listing, depth, pages: pages.length, most, bounded: most <= BOUND }).toMatchObject({ bounded: true });
        firstPages.push(pages[0].queries);
      }
      expect(firstPages[2] - firstPages[1]).toBeLessThanOrEqual(4);
    },
  );

  it('a made-up deep start key: one page, the same cost at depth 10, 100 and 1,000 (objects v1 and v2, versions, uploads)', async () => {
    await h.core.objects.list({ bucket: PLAIN, maxKeys: 10 }); // warm the prepared statements
    const costs: Record<string, number[]> = { v2: [], v1: [], versions: [], uploads: [] };
    for (const depth of [10, 100, 1000]) {
      const marker = '/'.repeat(depth);
      const v2 = await v2Pages(PLAIN, marker);
      expect(v2.map((p) => p.keys)).toEqual([others]);
      costs.v2.push(v2[0].queries);
      const v1 = await counted(() => h.core.objects.list({ bucket: PLAIN, after: marker, maxKeys: 1000 }));
      expect(v1.result).toMatchObject({ isTruncated: false, contents: others.map((key) => ({ key })) });
      costs.v1.push(v1.queries);
      const versions = await counted(() => h.core.objects.listVersions({ bucket: PLAIN, keyMarker: marker, maxKeys: 1000 }));
      expect(versions.result.versions.map((v) => v.key)).toEqual(others);
      costs.versions.push(versions.queries);
      const uploads = await counted(() => h.core.multipart.listUploads({ bucket: PLAIN, keyMarker: marker, maxUploads: 1000 }));
      expect(uploads.result.uploads.map((u) => u.key)).toEqual(['zz']);
      costs.uploads.push(uploads.queries);
    }
    // beyond the budget only the binary search grows with depth: log2(1001) - log2(101) < 4 reads
    for (const [listing, c] of Object.entries(costs))
      expect({ listing, c, bounded: Math.max(...c) <= BOUND, flat: c[2] - c[1] <= 4 }).toMatchObject({ bounded: true, flat: true });
  });

  it('an existing chain of 10, 100 and 1,000 levels: every ListObjectsV2 page costs at most the bound, and the pages keep S3 order', async () => {
    const firstPages: number[] = [];
    for (const depth of [10, 100, 1000]) {
      const pages = await v2Pages(CHAINS, chain(depth));
      expect(pages.flatMap((p) => p.keys)).toEqual(modelList(chainKeys, { after: chain(depth) }));
      const most = Math.max(...pages.map((p) => p.queries));
      expect({ depth, pages: pages.length, most, bounded: most <= BOUND }).toMatchObject({ bounded: true });
      firstPages.push(pages[0].queries);
    }
    expect(firstPages[2] - firstPages[1]).toBeLessThanOrEqual(4);
  });
});
