import { createHash, randomBytes, randomUUID } from 'crypto';
import { sha256First32 } from './sha256';

const reference = (text: string) => createHash('sha256').update(text, 'utf8').digest().readUInt32BE(0);

describe(sha256First32.name, () => {
  it('matches the FIPS 180-4 test vectors', () => {
    expect(sha256First32('')).toBe(0xe3b0c442);
    expect(sha256First32('abc')).toBe(0xba7816bf);
    expect(sha256First32('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(0x248d6a61);
  });

  it("equals OpenSSL's digest on UUIDs", () => {
    for (let i = 0; i < 5000; i++) {
      const id = randomUUID();
      expect(sha256First32(id)).toBe(reference(id));
    }
  });

  it('equals it on every length around the block boundaries, up to several blocks', () => {
    for (let n = 0; n <= 300; n++) {
      const id = randomBytes(n).toString('base64').slice(0, n);
      expect([n, sha256First32(id)]).toEqual([n, reference(id)]);
    }
  });

  it('hashes the UTF-8 bytes of non-ASCII ids, lone surrogates as U+FFFD like Buffer.from', () => {
    const ids = [
      'é',
      'événement-42',
      '日本語のイベント',
      'emoji-😀-id',
      'x'.repeat(60) + 'ü',
      '\ud800',
      'a\udc00b',
    ];
    for (let i = 0; i < 200; i++)
      ids.push(
        Array.from({ length: i }, (_, j) => String.fromCharCode(((i * 7919 + j * 104729) % 0xd7ff) + 1)).join(
          '',
        ),
      );
    for (const id of ids) expect([id, sha256First32(id)]).toEqual([id, reference(id)]);
  });

  it('gives the same answer after a long id grew its scratch space', () => {
    const short = randomUUID();
    const before = sha256First32(short);
    sha256First32('y'.repeat(10_000));
    expect(sha256First32(short)).toBe(before);
  });
});
