import { Readable } from 'stream';
import { isAligned } from './aligned-memory';
import { idleBuffersFor, lendChunks, ReadBufferPool, recyclerOf } from './read-buffers';

describe(idleBuffersFor.name, () => {
  it('keeps 16 idle buffers up to 2 MiB, then at most 32 MiB of them, never fewer than 4', () => {
    const MiB = 1024 * 1024;
    expect(idleBuffersFor(MiB)).toBe(16);
    expect(idleBuffersFor(2 * MiB)).toBe(16);
    expect(idleBuffersFor(4 * MiB)).toBe(8);
    expect(idleBuffersFor(16 * MiB)).toBe(4);
  });
});

describe(ReadBufferPool.name, () => {
  it('makes at most maxIdle aligned buffers (for O_DIRECT reads), and keeps them before ordinary ones', () => {
    const pool = new ReadBufferPool(4096, 2);
    const [a, b, c] = [pool.acquire(4096), pool.acquire(4096), pool.acquire(4096)];
    expect([a, b, c].map(isAligned)).toEqual([true, true, false]);
    pool.release(c);
    pool.release(a);
    pool.release(b); // full: takes the ordinary one's place
    expect(pool.idleCount).toBe(2);
    const again = [pool.acquire(4096), pool.acquire(4096)];
    expect(again.every(isAligned)).toBe(true);
    expect(new Set(again.map((x) => x.buffer))).toEqual(new Set([a.buffer, b.buffer]));
  });

  it('hands out views of its buffers and reuses what comes back, views included', () => {
    const pool = new ReadBufferPool(8);
    const a = pool.acquire(8);
    const b = pool.acquire(3);
    expect(a.length).toBe(8);
    expect(b.length).toBe(3);
    expect(b.buffer).not.toBe(a.buffer);
    pool.release(b); // a short last piece: its whole buffer is reused
    expect(pool.idleCount).toBe(1);
    const again = pool.acquire(8);
    expect(again.buffer).toBe(b.buffer);
    expect(again.length).toBe(8);
    expect(pool.idleCount).toBe(0);
  });

  it('ignores buffers it did not hand out, a buffer given back twice, and more than maxIdle', () => {
    const pool = new ReadBufferPool(8, 2);
    pool.release(Buffer.alloc(8));
    pool.release(Buffer.allocUnsafeSlow(8));
    expect(pool.idleCount).toBe(0);
    const [x, y, z] = [pool.acquire(8), pool.acquire(8), pool.acquire(8)];
    pool.release(x);
    pool.release(x.subarray(0, 4));
    expect(pool.idleCount).toBe(1);
    pool.release(y);
    pool.release(z);
    expect(pool.idleCount).toBe(2);
    const got = new Set([pool.acquire(8).buffer, pool.acquire(8).buffer]);
    expect(got).toEqual(new Set([x.buffer, y.buffer]));
    expect(pool.acquire(8).buffer).not.toBe(z.buffer);
  });

  it('allocates a piece larger than its buffers outside the pool', () => {
    const pool = new ReadBufferPool(4);
    const big = pool.acquire(10);
    expect(big.length).toBe(10);
    pool.release(big);
    expect(pool.idleCount).toBe(0);
  });
});

describe('lendChunks / recyclerOf', () => {
  it('gives a lending stream a recycler into its pool, and other streams none', () => {
    const pool = new ReadBufferPool(4);
    const plain = Readable.from([Buffer.from('x')]);
    expect(recyclerOf(plain)).toBeUndefined();
    const lent = lendChunks(Readable.from([Buffer.from('x')]), pool);
    const recycle = recyclerOf(lent)!;
    const chunk = pool.acquire(4);
    recycle(chunk);
    expect(pool.idleCount).toBe(1);
    plain.destroy();
    lent.destroy();
  });
});
