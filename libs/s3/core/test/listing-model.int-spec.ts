import { compareUtf8 } from '../src';
import { modelList } from '../src/testing';
import { alice, harness, Harness, put } from './support';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const ALPHABET = ['a', 'b', '/', '/', '-', '.', 'é', '😀', 'z', '0', ' '];
function randomKey(r: () => number): string {
  if (r() < 0.2) {
    let k = '';
    for (let d = 1 + Math.floor(r() * 6); d > 0; d--) k += ['a/', 'b/', 'a-', 'é/'][Math.floor(r() * 4)];
    return k + ['x', '', 'a.b', '😀'][Math.floor(r() * 4)];
  }
  let k = '';
  for (let n = 1 + Math.floor(r() * 7); n > 0; n--) k += ALPHABET[Math.floor(r() * ALPHABET.length)];
  return k;
}

/**
 * The listing walk over the real tables (paging through Cassandra with small and large pages)
 * against the brute-force model of S3's order, on random keys with '/', '-', '.', unicode, deep
 * nesting, empty folders left by deletes, prefixes ending mid-name and several delimiters.
 */
describe('listing against the S3 model on a real Cassandra', () => {
  let h: Harness;
  const B = 'model-bucket';
  const r = rng(424242);
  const live: string[] = [];
  const uploaded: string[] = [];

  beforeAll(async () => {
    h = await harness('listmodel');
    await h.core.buckets.create({ name: B, owner: alice, location: '', acl: 'private' });
    const keys = [...new Set(Array.from({ length: 160 }, () => randomKey(r)))].filter((k) => k !== '');
    for (let i = 0; i < keys.length; i += 16) await Promise.all(keys.slice(i, i + 16).map((k) => put(h.core, B, k, '')));
    // delete a third of them: their folders stay behind, empty
    const doomed = keys.filter(() => r() < 0.33);
    await Promise.all(doomed.map((k) => h.core.objects.delete(B, k, alice)));
    live.push(...keys.filter((k) => !doomed.includes(k)).sort(compareUtf8));
    uploaded.push(...keys.filter(() => r() < 0.3));
    await Promise.all(uploaded.map((key) => h.core.multipart.create({ bucket: B, key, owner: alice, meta: { userMeta: {} } })));
  }, 120_000);
  afterAll(() => h.close());

  const pick = (): string => {
    // prefixes cut at code points: S3 prefixes are valid UTF-8
    const k = Array.from(live[Math.floor(r() * live.length)] ?? '');
    const c = r();
    if (c < 0.5) return k.slice(0, Math.floor(r() * (k.length + 1))).join('');
    if (c < 0.7) return k.join('');
    return randomKey(r);
  };

  it('ListObjects: every page sequence reassembles the model answer', async () => {
    for (let round = 0; round < 60; round++) {
      const prefix = r() < 0.4 ? '' : pick();
      const delimiter = ['/', '', '-', 'a', 'b/'][Math.floor(r() * 5)];
      const after = r() < 0.5 ? undefined : pick();
      const maxKeys = [1, 3, 7, 1000][Math.floor(r() * 4)];
      const expected = modelList(live, { prefix, delimiter, after });
      const got: string[] = [];
      let marker = after;
      for (let guard = 0; guard < 400; guard++) {
        const page = await h.core.objects.list({ bucket: B, prefix, delimiter, after: marker, maxKeys });
        const merged = [...page.contents.map((c) => c.key), ...page.commonPrefixes].sort(compareUtf8);
        expect(merged.length).toBeLessThanOrEqual(maxKeys);
        got.push(...merged);
        if (!page.isTruncated) break;
        marker = page.nextAfter;
      }
      expect({ prefix, delimiter, after, maxKeys, got }).toEqual({ prefix, delimiter, after, maxKeys, got: expected });
    }
  });

  it('ListObjectVersions and ListMultipartUploads walk the same order', async () => {
    for (let round = 0; round < 20; round++) {
      const prefix = r() < 0.4 ? '' : pick();
      const delimiter = ['/', '', '-'][Math.floor(r() * 3)];
      const expected = modelList(live, { prefix, delimiter });
      const page = await h.core.objects.listVersions({ bucket: B, prefix, delimiter, maxKeys: 1000 });
      const got = [...page.versions.map((v) => v.key), ...page.commonPrefixes].sort(compareUtf8);
      expect({ prefix, delimiter, got }).toEqual({ prefix, delimiter, got: expected });

      const after = r() < 0.5 ? undefined : pick();
      const uploads: string[] = [];
      let keyMarker = after;
      for (let guard = 0; guard < 200; guard++) {
        const up = await h.core.multipart.listUploads({ bucket: B, prefix, delimiter, keyMarker, maxUploads: 4 });
        uploads.push(...[...up.uploads.map((u) => u.key), ...up.commonPrefixes].sort(compareUtf8));
        if (!up.isTruncated) break;
        expect(up.nextUploadIdMarker === undefined).toBe(up.commonPrefixes.includes(up.nextKeyMarker!));
        keyMarker = up.nextKeyMarker; // one upload per key here: the key marker alone continues
      }
      expect({ prefix, delimiter, after, uploads }).toEqual({ prefix, delimiter, after, uploads: modelList(uploaded, { prefix, delimiter, after }) });
    }
  });
});
