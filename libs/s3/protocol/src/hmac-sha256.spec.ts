import { createHash, createHmac } from 'crypto';
import { hmacSha256, sha256Hex } from './sigv4-signing';

describe('hmacSha256', () => {
  const keys = [0, 1, 31, 32, 63, 64, 65, 200].map((n) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 37 + n) % 256)));
  const data: (string | Buffer)[] = ['', 'aws4_request', 'AWS4-HMAC-SHA256\n20261206T000000Z\nscope\n' + 'f'.repeat(64), 'ключ/ü/🙂', Buffer.alloc(1000, 7)];

  it('equals createHmac for keys shorter than, equal to and longer than the block, and any data', () => {
    for (const key of keys) {
      for (const d of data) expect(hmacSha256(key, d).toString('hex')).toBe(createHmac('sha256', key).update(d).digest('hex'));
    }
  });

  it('matches RFC 4231 test case 2', () => {
    const mac = hmacSha256(Buffer.from('Jefe'), 'what do ya want for nothing?').toString('hex');
    expect(mac).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });
});

describe('sha256Hex', () => {
  it('equals createHash for strings (UTF-8) and buffers', () => {
    for (const d of ['', 'GET\n/\n', 'ключ', Buffer.alloc(70_000, 1)]) expect(sha256Hex(d)).toBe(createHash('sha256').update(d).digest('hex'));
  });
});
