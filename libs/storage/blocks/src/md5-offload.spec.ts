import { createHash } from 'crypto';
import { BlockBufferPool, Md5Session } from './md5-offload';

const md5 = (...parts: Buffer[]) => {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
};

function sharedCopy(data: Buffer): Buffer {
  const b = Buffer.from(new SharedArrayBuffer(data.length));
  data.copy(b);
  return b;
}

describe(Md5Session.name, () => {
  const a = Buffer.from('the first block of a body '.repeat(1000));
  const b = Buffer.from('and the second, shorter');

  it('gives each block its MD5 and the body the MD5 of all blocks in order (worker thread)', async () => {
    const s = new Md5Session();
    const [ha, hb] = await Promise.all([s.block(sharedCopy(a)), s.block(sharedCopy(b))]);
    expect(ha).toBe(md5(a).toString('hex'));
    expect(hb).toBe(md5(b).toString('hex'));
    expect((await s.finish()).equals(md5(a, b))).toBe(true);
  });

  it('keeps concurrent sessions apart', async () => {
    const s1 = new Md5Session();
    const s2 = new Md5Session();
    await Promise.all([s1.block(sharedCopy(a)), s2.block(sharedCopy(b)), s1.block(sharedCopy(b))]);
    const [d1, d2] = await Promise.all([s1.finish(), s2.finish()]);
    expect(d1.equals(md5(a, b))).toBe(true);
    expect(d2.equals(md5(b))).toBe(true);
  });

  it('keeps the body digest in block order over many blocks posted at once (two threads)', async () => {
    const blocks = Array.from({ length: 24 }, (_, i) => Buffer.from(`block ${i} `.repeat(2000 + i * 97)));
    const s = new Md5Session();
    const own = await Promise.all(blocks.map((x) => s.block(sharedCopy(x))));
    expect(own).toEqual(blocks.map((x) => md5(x).toString('hex')));
    expect((await s.finish()).equals(md5(...blocks))).toBe(true);
  });

  it("resolves a block only once it is folded into the body's digest, so its buffer may be reused", async () => {
    const x = new Md5Session();
    new Md5Session().drop(); // x and busy share a home thread when there are two
    const busy = new Md5Session();
    const first = sharedCopy(a);
    const second = sharedCopy(Buffer.alloc(8 << 20, 's'));
    await x.block(first);
    // the home thread folds 64 MiB of another body first; the other thread is free for the own hash
    const busyBlock = busy.block(sharedCopy(Buffer.alloc(64 << 20, 'b')));
    expect(await x.block(second)).toBe(md5(Buffer.alloc(8 << 20, 's')).toString('hex'));
    second.fill('r'); // reused for the next upload as soon as the block is stored
    expect((await x.finish()).equals(md5(a, Buffer.alloc(8 << 20, 's')))).toBe(true);
    await busyBlock;
    busy.drop();
  });

  it('hashes ordinary buffers on the calling thread, and mixed input in order', async () => {
    const local = new Md5Session();
    expect(await local.block(a)).toBe(md5(a).toString('hex'));
    expect((await local.finish()).equals(md5(a))).toBe(true);
    const mixed = new Md5Session();
    await mixed.block(sharedCopy(a));
    await mixed.block(b);
    expect((await mixed.finish()).equals(md5(a, b))).toBe(true);
  });

  it('an empty body has the MD5 of nothing; a finished session refuses more', async () => {
    const s = new Md5Session();
    expect((await s.finish()).equals(md5())).toBe(true);
    await expect(s.block(a)).rejects.toThrow(/finished/);
    await expect(s.finish()).rejects.toThrow(/finished/);
  });
});

describe(BlockBufferPool.name, () => {
  it('hands out at most maxShared shared buffers, then ordinary ones, and reuses what comes back', () => {
    let overflows = 0;
    const pool = new BlockBufferPool(16, 2, () => overflows++);
    const x = pool.acquire();
    const y = pool.acquire();
    expect(overflows).toBe(0);
    const z = pool.acquire();
    expect(overflows).toBe(1);
    expect(x.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(y.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(z.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    expect(z.length).toBe(16);
    expect(pool.sharedCount).toBe(2);
    pool.release(x.subarray(0, 5)); // the last block of a body is a view: its buffer is still reused
    pool.release(z); // ordinary: ignored
    const again = pool.acquire();
    expect(again.buffer).toBe(x.buffer);
    expect(again.length).toBe(16);
    expect(pool.acquire().buffer).not.toBeInstanceOf(SharedArrayBuffer);
    expect(pool.sharedCount).toBe(2);
    expect(overflows).toBe(2);
  });

  it('ignores buffers it did not hand out and a buffer given back twice', () => {
    const pool = new BlockBufferPool(16, 4);
    pool.release(Buffer.alloc(16));
    pool.release(Buffer.from(new SharedArrayBuffer(32)).subarray(0, 16));
    const a = pool.acquire();
    pool.release(a);
    pool.release(a);
    expect(pool.acquire().buffer).toBe(a.buffer);
    expect(pool.acquire().buffer).not.toBe(a.buffer);
  });
});

describe(`${Md5Session.name} with ordinary blocks after shared ones`, () => {
  it('sends copies to the worker so the body digest keeps block order', async () => {
    const a = Buffer.from('shared first '.repeat(100));
    const b = Buffer.from('then ordinary memory');
    const s = new Md5Session();
    const [ha, hb] = await Promise.all([s.block(sharedCopy(a)), s.block(b)]);
    expect(ha).toBe(md5(a).toString('hex'));
    expect(hb).toBe(md5(b).toString('hex'));
    expect((await s.finish()).equals(md5(a, b))).toBe(true);
  });
});
