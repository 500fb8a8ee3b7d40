import { createHash } from 'crypto';
import { hmacSha256, sha256Hex } from './sigv4-signing';

describe('hmacSha256', () => {
  it('matches RFC 4231 test case 2', () => {
    const mac = hmacSha256(Buffer.from('Jefe'), 'what do ya want for nothing?').toString('hex');
    expect(mac).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });
});

describe('sha256Hex (one-shot crypto.hash)', () => {
  it('matches the FIPS 180-2 answer for "abc"', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('equals createHash for strings (as UTF-8) and buffers', () => {
    for (const d of ['', 'GET\n/\n', 'ключ/🙂', Buffer.alloc(70_000, 1)]) expect(sha256Hex(d)).toBe(createHash('sha256').update(d).digest('hex'));
  });
});
