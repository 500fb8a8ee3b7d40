import { createHash } from 'crypto';
import { PassThrough, Readable } from 'stream';
import type { BlockManager, StoredBody } from '@ostore/storage/blocks';
import { receiveBody, storeBody } from './body';

/** A block manager that keeps what it is given in memory (one "block"), failing when told to. */
function memoryBlocks(options: { failAfterBytes?: number } = {}) {
  const stored: Buffer[] = [];
  const discarded: string[] = [];
  const manager = {
    async writeStream(body: Readable): Promise<StoredBody> {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const c of body) {
        chunks.push(c as Buffer);
        size += (c as Buffer).length;
        if (options.failAfterBytes !== undefined && size > options.failAfterBytes) throw new Error('disk full');
      }
      stored.push(Buffer.concat(chunks));
      return { blocks: [{ blockId: `b${stored.length}`, tier: 'standard' }], size } as StoredBody;
    },
    async discard(blocks: { blockId: string }[]) {
      discarded.push(...blocks.map((b) => b.blockId));
    },
  } as unknown as BlockManager;
  return { manager, stored, discarded };
}

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

describe('receiving a request body', () => {
  it('keeps a small body in memory with its digests, and sends a larger one to blocks', async () => {
    const small = Buffer.from('x'.repeat(3000));
    const mem = memoryBlocks();
    const a = await receiveBody(
      mem.manager,
      Readable.from([small.subarray(0, 1000), small.subarray(1000)]),
      ['CRC32'],
      undefined,
      4096,
    );
    expect(a.inline?.equals(small)).toBe(true);
    expect(a.digests.md5.toString('hex')).toBe(md5(small));
    expect(a.digests.checksums.CRC32).toBeDefined();
    expect(mem.stored).toHaveLength(0);

    const large = Buffer.alloc(10_000, 7);
    const b = await receiveBody(
      mem.manager,
      Readable.from([large.subarray(0, 4000), large.subarray(4000)]),
      [],
      undefined,
      4096,
    );
    expect(b.inline).toBeUndefined();
    expect(mem.stored[0].equals(large)).toBe(true);
    expect(b.digests.md5.toString('hex')).toBe(md5(large));
  });

  it('keeps an empty body as an empty inline body (stored in its row), but not an encrypted one', async () => {
    const mem = memoryBlocks();
    const plain = await receiveBody(mem.manager, Readable.from([]), [], undefined, 4096);
    expect(plain.inline).toEqual(Buffer.alloc(0));
    expect(plain.stored).toEqual({ blocks: [], size: 0 });
    expect(plain.digests.md5.toString('hex')).toBe(md5(Buffer.alloc(0)));
    const sealed = await receiveBody(mem.manager, Readable.from([]), [], undefined, 4096, Buffer.alloc(32, 1));
    expect(sealed.inline).toBeUndefined();
    expect(sealed.stored.size).toBe(0);
    expect(mem.stored).toHaveLength(0);
  });

  it('fails, and stores nothing, when the client goes away mid-body', async () => {
    for (const inlineMax of [0, 1 << 20]) {
      const mem = memoryBlocks();
      const body = new PassThrough();
      const done =
        inlineMax > 0
          ? receiveBody(mem.manager, body, [], undefined, inlineMax)
          : storeBody(mem.manager, body, [], undefined);
      body.write(Buffer.alloc(100));
      setImmediate(() => body.destroy()); // a premature close, no error (a socket that just closed)
      await expect(done).rejects.toThrow(/premature close/i);
      expect(mem.stored).toHaveLength(0);
    }
  });

  it('forwards a body error, and stops reading the body when the block store fails', async () => {
    const mem = memoryBlocks();
    const broken = new PassThrough();
    const done = storeBody(mem.manager, broken, [], undefined);
    broken.write(Buffer.alloc(10));
    setImmediate(() => broken.destroy(new Error('aborted')));
    await expect(done).rejects.toThrow('aborted');

    const failing = memoryBlocks({ failAfterBytes: 50 });
    const body = new PassThrough();
    const stored = storeBody(failing.manager, body, [], undefined);
    body.write(Buffer.alloc(100));
    await expect(stored).rejects.toThrow('disk full');
    await new Promise((r) => setImmediate(r));
    expect(body.destroyed).toBe(true);
  });

  it('discards the blocks of a body that fails verification', async () => {
    const mem = memoryBlocks();
    const verify = async () => {
      throw new Error('BadDigest');
    };
    await expect(storeBody(mem.manager, Readable.from([Buffer.alloc(100)]), [], verify)).rejects.toThrow('BadDigest');
    expect(mem.discarded).toEqual(['b1']);
  });
});
