import { CreateBucketCommand, ListObjectsCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GatewayUnderTest, startGateway } from '@ostore/testing';

/** S3's order: UTF-8 binary order of the whole key. */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** A model of S3 listing: every entry (key or common prefix) after `after`, in byte order. */
function modelList(keys: string[], prefix: string, delimiter: string | undefined, after = ''): { entries: { key: string; isPrefix: boolean }[] } {
  const out: { key: string; isPrefix: boolean }[] = [];
  const seen = new Set<string>();
  for (const key of [...keys].sort(byteOrder)) {
    if (!key.startsWith(prefix)) continue;
    if (delimiter) {
      const i = key.indexOf(delimiter, prefix.length);
      if (i >= 0) {
        const cp = key.slice(0, i + delimiter.length);
        if (byteOrder(cp, after) <= 0 || seen.has(cp)) continue;
        seen.add(cp);
        out.push({ key: cp, isPrefix: true });
        continue;
      }
    }
    if (byteOrder(key, after) <= 0) continue;
    out.push({ key, isPrefix: false });
  }
  return { entries: out };
}

/** Deterministic pseudo-random keys with '/', '-', '.', unicode, deep nesting. */
function randomKeys(n: number, seed: number): string[] {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const parts = ['a', 'b', 'a-b', 'a.b', 'ab', 'é', 'z', '0', 'a/b', 'x~y', '日本', 'a-', '-'];
  const keys = new Set<string>(['a-b', 'a/b', 'a.b/c', 'a/b/c/d/e/f', 'dir/', 'dir//double', 'ab']);
  while (keys.size < n) {
    const depth = 1 + Math.floor(rnd() * 4);
    const segs = Array.from({ length: depth }, () => parts[Math.floor(rnd() * parts.length)] + (rnd() < 0.3 ? String(Math.floor(rnd() * 10)) : ''));
    keys.add(segs.join('/'));
  }
  return [...keys];
}

describe('listing order and pagination against a model of S3', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;
  const Bucket = 'listing-model';
  const keys = randomKeys(260, 42);

  beforeAll(async () => {
    gw = await startGateway('listing');
    s3 = gw.client();
    await s3.send(new CreateBucketCommand({ Bucket }));
    const queue = [...keys];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let k = queue.shift(); k !== undefined; k = queue.shift()) await s3.send(new PutObjectCommand({ Bucket, Key: k, Body: k }));
      }),
    );
  }, 300000);
  afterAll(() => gw?.stop());

  const cases: [string, string | undefined][] = [
    ['', undefined],
    ['', '/'],
    ['a', '/'],
    ['a/', '/'],
    ['a/b', undefined],
    ['a/b', '/'],
    ['a-', '/'],
    ['é', '/'],
    ['', '-'],
    ['a', '.'],
    ['a/', 'b'],
    ['zzz', '/'],
    ['dir/', '/'],
  ];

  it.each(cases)('ListObjectsV2 prefix=%j delimiter=%j pages through exactly the model', async (prefix, delimiter) => {
    const expected = modelList(keys, prefix, delimiter).entries;
    const got: { key: string; isPrefix: boolean }[] = [];
    let token: string | undefined;
    for (let page = 0; page < 500; page++) {
      const r = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: prefix || undefined, Delimiter: delimiter, MaxKeys: 7, ContinuationToken: token }));
      const pageEntries = [...(r.Contents ?? []).map((c) => ({ key: c.Key!, isPrefix: false })), ...(r.CommonPrefixes ?? []).map((p) => ({ key: p.Prefix!, isPrefix: true }))].sort((a, b) =>
        byteOrder(a.key, b.key),
      );
      expect(pageEntries.length).toBeLessThanOrEqual(7);
      expect(r.KeyCount).toBe(pageEntries.length);
      got.push(...pageEntries);
      if (!r.IsTruncated) break;
      token = r.NextContinuationToken;
    }
    expect(got).toEqual(expected);
  });

  it.each(cases.slice(0, 6))('ListObjects v1 prefix=%j delimiter=%j with markers matches the model', async (prefix, delimiter) => {
    const expected = modelList(keys, prefix, delimiter).entries.map((e) => e.key);
    const got: string[] = [];
    let marker: string | undefined;
    for (let page = 0; page < 500; page++) {
      const r = await s3.send(new ListObjectsCommand({ Bucket, Prefix: prefix || undefined, Delimiter: delimiter, MaxKeys: 11, Marker: marker }));
      const entries = [...(r.Contents ?? []).map((c) => c.Key!), ...(r.CommonPrefixes ?? []).map((p) => p.Prefix!)].sort(byteOrder);
      got.push(...entries);
      if (!r.IsTruncated) break;
      marker = r.NextMarker ?? entries[entries.length - 1];
    }
    expect(got).toEqual(expected);
  });

  it('start-after skips to a key in the middle of a name, in byte order', async () => {
    const r = await s3.send(new ListObjectsV2Command({ Bucket, StartAfter: 'a-', MaxKeys: 1000 }));
    expect(r.Contents?.map((c) => c.Key)).toEqual(modelList(keys, '', undefined, 'a-').entries.map((e) => e.key).slice(0, 1000));
  });

  it('url-encodes keys and prefixes when asked', async () => {
    const r = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: '日本', EncodingType: 'url', MaxKeys: 5 }));
    const expected = modelList(keys, '日本', undefined).entries.slice(0, 5).map((e) => e.key);
    expect(r.EncodingType).toBe('url');
    expect(r.Prefix).toBe(encodeURIComponent('日本'));
    // the SDK hands back the encoded form; clients decode it
    expect(r.Contents?.map((c) => decodeURIComponent(c.Key!.replace(/\+/g, ' ')))).toEqual(expected);
    expect(r.Contents?.every((c) => !c.Key!.includes('日'))).toBe(true);
  });

  it('ListObjects v1 url-encodes keys but echoes the prefix as given, as S3 does', async () => {
    const r = await s3.send(new ListObjectsCommand({ Bucket, Prefix: '日本', EncodingType: 'url', MaxKeys: 5 }));
    expect(r.EncodingType).toBe('url');
    expect(r.Prefix).toBe('日本');
    expect(r.Contents?.length).toBeGreaterThan(0);
    expect(r.Contents?.every((c) => !c.Key!.includes('日'))).toBe(true);
  });

  it('max-keys=0 returns nothing but says whether more exists', async () => {
    const r = await s3.send(new ListObjectsV2Command({ Bucket, MaxKeys: 0 }));
    expect(r.KeyCount).toBe(0);
    expect(r.Contents ?? []).toEqual([]);
  });
});
