import { Readable } from 'stream';
import { pipeline } from 'stream/promises';
import { createHash } from 'crypto';
import { compositeChecksum, createHasher, DigestTap, multipartEtag, normalizeEtag, quotedEtag } from './checksums';

describe(DigestTap.name, () => {
  it('passes bytes through and digests them', async () => {
    const sut = new DigestTap(['CRC32', 'CRC32C', 'SHA1', 'SHA256']);
    const chunks: Buffer[] = [];
    await pipeline(Readable.from([Buffer.from('hello '), Buffer.from('world')]), sut, async (src) => {
      for await (const c of src) chunks.push(c as Buffer);
    });
    const r = sut.result();
    expect(Buffer.concat(chunks).toString()).toBe('hello world');
    expect(r.size).toBe(11);
    expect(quotedEtag(r.md5)).toBe('"5eb63bbbe01eeed093cb22bb8f5acdc3"');
    // known values for "hello world"
    expect(r.checksums.CRC32).toBe('DUoRhQ==');
    expect(r.checksums.CRC32C).toBe('yZRlqg==');
    expect(r.checksums.SHA1).toBe(createHash('sha1').update('hello world').digest('base64'));
    expect(r.checksums.SHA256).toBe(createHash('sha256').update('hello world').digest('base64'));
  });
});

describe(multipartEtag.name, () => {
  it('is the md5 of the binary part md5s with the part count', () => {
    const a = createHash('md5').update('a').digest();
    const b = createHash('md5').update('b').digest();
    const expected = createHash('md5').update(Buffer.concat([a, b])).digest('hex');
    expect(multipartEtag([quotedEtag(a), b.toString('hex').toUpperCase()])).toBe(`"${expected}-2"`);
  });

  it('normalizes quotes and case', () => {
    expect(normalizeEtag('"ABC"')).toBe('abc');
  });
});

describe(compositeChecksum.name, () => {
  it('hashes the concatenated binary checksums', () => {
    const parts = ['DUoRhQ==', 'yZRlqg=='];
    const h = createHasher('CRC32');
    h.update(Buffer.concat(parts.map((p) => Buffer.from(p, 'base64'))));
    expect(compositeChecksum('CRC32', parts)).toBe(`${h.digest().toString('base64')}-2`);
  });
});
