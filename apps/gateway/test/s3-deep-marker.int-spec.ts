import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  ListObjectsCommand,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { CassandraClient } from '@ostore/shared/cassandra';
import { cassandraOptions, GatewayUnderTest, startGateway } from '@ostore/testing';

/** S3's order: UTF-8 binary order of the whole key. */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/**
 * ListObjects (v1 marker), ListObjectVersions (key-marker / version-id-marker) and
 * ListMultipartUploads (key-marker / upload-id-marker) through the real gateway with SDK v3, after
 * markers in real key chains 10, 100 and 1,000 levels deep. Each page is continued the way a client
 * does (NextMarker when given, else the last key; NextKeyMarker with NextVersionIdMarker /
 * NextUploadIdMarker), the whole listing equals a brute-force sort of the keys, and the Cassandra
 * requests of each page — counted by Cassandra itself (`system_views.clients.request_count` of the
 * gateway's connections, the only ones in its keyspace) — stay under a bound that does not depend
 * on the depth: before, a page after a 1,000-level marker cost about 2,000 requests.
 */
describe('listings after deep markers in real key chains (gateway, SDK v3)', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;
  let db: CassandraClient;
  const Bucket = 'deep-chains';
  const chain = (depth: number) => '/'.repeat(depth) + 'k';
  const keys = ['a/x', 'z/y', 'zz', chain(10), chain(100), chain(1000), '/'.repeat(500) + 'mid'];
  const twice = new Set(['zz', chain(1000), chain(100)]); // two versions each
  /**
   * Budget levels (2 x 32: leaves and folders), the binary search (log2 1,001), the bucket and
   * key lookups and the other keys' few directories: 70-77 measured per page (20-28 for the last
   * page of a listing), up to ~95 when the loaded box makes the driver retry; against ~2,000 at
   * depth 1,000 before. Twice the quiet figure, so that only a cost growing with depth fails it.
   */
  const BOUND = 2 * (2 * 32 + Math.ceil(Math.log2(1001)) + 3);

  beforeAll(async () => {
    gw = await startGateway('deepmarker');
    s3 = gw.client();
    // a session outside the gateway's keyspace, so that its own requests are not counted
    db = new CassandraClient(cassandraOptions('system_views'));
    await db.connect();
    await s3.send(new CreateBucketCommand({ Bucket }));
    await s3.send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: 'Enabled' } }));
    for (const Key of keys) {
      for (let i = twice.has(Key) ? 2 : 1; i > 0; i--) await s3.send(new PutObjectCommand({ Bucket, Key, Body: Key }));
      await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));
    }
  }, 600_000); // ~2,500 folder rows on a loaded box
  afterAll(async () => {
    await db?.shutdown();
    await gw?.stop();
  });

  /** The requests Cassandra has served on the gateway's connections so far. */
  async function gatewayRequests(): Promise<number> {
    const rs = await db.execute('SELECT keyspace_name, request_count FROM system_views.clients');
    return rs.rows.filter((r) => r['keyspace_name'] === gw.keyspace).reduce((n, r) => n + Number(r['request_count']), 0);
  }

  type Marker = { key: string; id?: string };
  type Page = { keys: string[]; next?: Marker };

  /**
   * Every page from `start`, each continued from what the previous one returned, with its Cassandra
   * requests: the fewer of two identical requests, since the gateway's background work (caches,
   * heartbeats) can only add to the count.
   */
  async function pages(start: string, page: (m: Marker) => Promise<Page>) {
    const out: { keys: string[]; requests: number }[] = [];
    let marker: Marker | undefined = { key: start };
    for (let guard = 0; guard < 200 && marker; guard++) {
      const runs: { p: Page; requests: number }[] = [];
      for (let i = 0; i < 2; i++) {
        const before = await gatewayRequests();
        const p = await page(marker);
        runs.push({ p, requests: (await gatewayRequests()) - before });
      }
      expect(runs[1].p).toEqual(runs[0].p);
      out.push({ keys: runs[0].p.keys, requests: Math.min(...runs.map((r) => r.requests)) });
      marker = runs[0].p.next;
    }
    if (marker) throw new Error('the listing did not end');
    return out;
  }

  const decode = (url: boolean) => (s: string) => (url ? decodeURIComponent(s.replace(/\+/g, ' ')) : s);

  const listings: Record<string, (url: boolean) => (m: Marker) => Promise<Page>> = {
    ListObjects: (url) => async (m) => {
      const dec = decode(url);
      const r = await s3.send(new ListObjectsCommand({ Bucket, Marker: m.key, MaxKeys: 1000, EncodingType: url ? 'url' : undefined }));
      const got = (r.Contents ?? []).map((c) => dec(c.Key!));
      return { keys: got, next: r.IsTruncated ? { key: r.NextMarker !== undefined ? dec(r.NextMarker) : got[got.length - 1] } : undefined };
    },
    ListObjectVersions: (url) => async (m) => {
      const dec = decode(url);
      const r = await s3.send(
        new ListObjectVersionsCommand({ Bucket, KeyMarker: m.key, VersionIdMarker: m.id, MaxKeys: 1000, EncodingType: url ? 'url' : undefined }),
      );
      const entries = [...(r.Versions ?? []), ...(r.DeleteMarkers ?? [])];
      return { keys: entries.map((v) => dec(v.Key!)).sort(byteOrder), next: r.IsTruncated ? { key: dec(r.NextKeyMarker!), id: r.NextVersionIdMarker } : undefined };
    },
    ListMultipartUploads: (url) => async (m) => {
      const dec = decode(url);
      const r = await s3.send(
        new ListMultipartUploadsCommand({ Bucket, KeyMarker: m.key, UploadIdMarker: m.id, MaxUploads: 1000, EncodingType: url ? 'url' : undefined }),
      );
      return { keys: (r.Uploads ?? []).map((u) => dec(u.Key!)), next: r.IsTruncated ? { key: dec(r.NextKeyMarker!), id: r.NextUploadIdMarker } : undefined };
    },
  };

  /** Brute force: every key after `after` in byte order (each version of a key for ListObjectVersions). */
  const expected = (name: string, after: string) =>
    [...keys].sort(byteOrder).filter((k) => byteOrder(k, after) > 0).flatMap((k) => (name === 'ListObjectVersions' && twice.has(k) ? [k, k] : [k]));

  it.each(Object.keys(listings).flatMap((name) => [[name, false] as const, [name, true] as const]))(
    '%s after markers 10, 100 and 1,000 levels deep (encoding-type=url: %s): the model, each page under the bound',
    async (name, url) => {
      await pages('zz', listings[name](url)); // warm the gateway's prepared statements
      const firstPages: number[] = [];
      for (const start of [chain(10), chain(100), chain(1000)]) {
        const got = await pages(start, listings[name](url));
        expect(got.flatMap((p) => p.keys)).toEqual(expected(name, start));
        const most = Math.max(...got.map((p) => p.requests));
        const facts = { name, depth: start.length, pages: got.length, requests: got.map((p) => p.requests) };
        expect({ ...facts, bounded: most <= BOUND }).toEqual({ ...facts, bounded: true });
        firstPages.push(got[0].requests);
      }
      // a marker 1,000 levels deep costs what one 100 levels deep does, give or take the binary search and retries
      expect({ name, firstPages, flat: firstPages[2] - firstPages[1] <= 30 }).toEqual({ name, firstPages, flat: true });
    },
    600_000,
  );
});
