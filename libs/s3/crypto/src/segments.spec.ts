import { randomBytes } from 'crypto';
import { Readable } from 'stream';
import { openBuffer, SEGMENT_BYTES, SEGMENT_OVERHEAD, sealBuffer, SealedBodyError, sealedRange, sealedSize, sealStream } from './segments';
import { partDataKey, plainSizeOf } from './parts';

async function collect(s: Readable): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of s) out.push(c as Buffer);
  return Buffer.concat(out);
}

/** Pushes `data` through `t` in chunks of `chunk` bytes. */
function through(t: NodeJS.ReadWriteStream, data: Buffer, chunk: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let i = 0; i < data.length; i += chunk) parts.push(data.subarray(i, i + chunk));
  return collect(Readable.from(parts, { objectMode: false }).pipe(t as never) as unknown as Readable);
}

describe('sealed segments', () => {
  const key = randomBytes(32);
  const sizes = [1, SEGMENT_BYTES - 1, SEGMENT_BYTES, SEGMENT_BYTES + 1, 3 * SEGMENT_BYTES + 77];

  it.each(sizes)('seals %d bytes into sealedSize bytes, streamed or whole, without the plaintext', async (n) => {
    const plain = randomBytes(n);
    const streamed = await through(sealStream(key), plain, 7919);
    expect(streamed.length).toBe(sealedSize(n));
    expect(sealBuffer(key, plain).length).toBe(sealedSize(n));
    // a run of 16+ plaintext bytes inside the sealed bytes would mean it was stored in clear; a
    // shorter body may appear in random ciphertext by chance (1 byte: ~11 % of runs), so is not checked
    if (n >= 16) expect(streamed.includes(plain.subarray(0, Math.min(n, 32)))).toBe(false);
    expect(openBuffer(key, streamed, n).equals(plain)).toBe(true);
  });

  it('sizes: segments of 64 KiB, each 28 bytes more; nothing for an empty body', () => {
    expect(sealedSize(0)).toBe(0);
    expect(sealedSize(SEGMENT_BYTES)).toBe(SEGMENT_BYTES + SEGMENT_OVERHEAD);
    expect(sealedSize(SEGMENT_BYTES + 1)).toBe(SEGMENT_BYTES + 1 + 2 * SEGMENT_OVERHEAD);
  });

  it('opens any range from only the segments it covers', async () => {
    const n = 4 * SEGMENT_BYTES + 1000;
    const plain = randomBytes(n);
    const sealed = sealBuffer(key, plain);
    for (const [start, end] of [[0, 0], [SEGMENT_BYTES - 1, SEGMENT_BYTES], [10, n - 1], [n - 5, n + 100], [2 * SEGMENT_BYTES, 3 * SEGMENT_BYTES - 1]]) {
      const r = sealedRange(key, n, { start, endInclusive: end });
      const want = plain.subarray(start, Math.min(end, n - 1) + 1);
      expect(r.endInclusive - r.start + 1).toBeLessThanOrEqual((Math.floor(Math.min(end, n - 1) / SEGMENT_BYTES) - Math.floor(start / SEGMENT_BYTES) + 1) * (SEGMENT_BYTES + SEGMENT_OVERHEAD));
      const got = await through(r.open(), sealed.subarray(r.start, r.endInclusive + 1), 5000);
      expect(got.equals(want)).toBe(true);
      expect(openBuffer(key, sealed, n, { start, endInclusive: end }).equals(want)).toBe(true);
    }
  });

  it('fails on a flipped bit, swapped segments, a dropped last segment or another key', async () => {
    const n = 3 * SEGMENT_BYTES;
    const plain = randomBytes(n);
    const sealed = sealBuffer(key, plain);
    const seg = SEGMENT_BYTES + SEGMENT_OVERHEAD;
    const flipped = Buffer.from(sealed);
    flipped[seg + 40] ^= 1;
    expect(() => openBuffer(key, flipped, n)).toThrow(SealedBodyError);
    const swapped = Buffer.concat([sealed.subarray(seg, 2 * seg), sealed.subarray(0, seg), sealed.subarray(2 * seg)]);
    expect(() => openBuffer(key, swapped, n)).toThrow(SealedBodyError);
    // two segments presented as a whole body: the second was not sealed as the last one
    expect(() => openBuffer(key, sealed.subarray(0, 2 * seg), 2 * SEGMENT_BYTES)).toThrow(SealedBodyError);
    expect(() => openBuffer(randomBytes(32), sealed, n)).toThrow(SealedBodyError);
    await expect(through(sealedRange(key, n).open(), flipped, 4096)).rejects.toThrow(SealedBodyError);
    await expect(through(sealedRange(key, n).open(), sealed.subarray(0, sealed.length - 10), 4096)).rejects.toThrow(SealedBodyError);
  });
});

describe('multipart part keys and sizes', () => {
  it('plainSizeOf inverts sealedSize and refuses impossible sizes', () => {
    for (const n of [0, 1, SEGMENT_BYTES - 1, SEGMENT_BYTES, SEGMENT_BYTES + 1, 5 * SEGMENT_BYTES + 3]) expect(plainSizeOf(sealedSize(n))).toBe(n);
    expect(() => plainSizeOf(SEGMENT_OVERHEAD)).toThrow(SealedBodyError);
    expect(() => plainSizeOf(SEGMENT_BYTES + SEGMENT_OVERHEAD + 5)).toThrow(SealedBodyError);
  });

  it('each part number has its own key: a part sealed as part 1 does not open as part 2', () => {
    const dataKey = randomBytes(32);
    const plain = randomBytes(1000);
    const sealed = sealBuffer(partDataKey(dataKey, 1), plain);
    expect(partDataKey(dataKey, 1).equals(partDataKey(dataKey, 1))).toBe(true);
    expect(openBuffer(partDataKey(dataKey, 1), sealed, plain.length).equals(plain)).toBe(true);
    expect(() => openBuffer(partDataKey(dataKey, 2), sealed, plain.length)).toThrow(SealedBodyError);
    expect(() => partDataKey(dataKey, 0)).toThrow();
  });
});
