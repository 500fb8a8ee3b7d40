import { Readable } from 'stream';
import { splitIntoBlocks } from './block-splitter';

const collect = async (chunks: (string | Buffer)[], size: number) => {
  const out: string[] = [];
  for await (const b of splitIntoBlocks(Readable.from(chunks, { objectMode: true }), size))
    out.push(b.toString());
  return out;
};

describe(splitIntoBlocks.name, () => {
  it('cuts a body into full blocks and a shorter last one, whatever the source chunking', async () => {
    expect(await collect(['abcdefghij'], 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(await collect(['a', 'bc', 'def', 'ghij'], 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(await collect(['ab', 'cd', 'ef', 'gh'], 4)).toEqual(['abcd', 'efgh']);
  });

  it('yields nothing for an empty body', async () => {
    expect(await collect([], 4)).toEqual([]);
    expect(await collect([Buffer.alloc(0)], 4)).toEqual([]);
  });

  it('does not keep references to the source buffers', async () => {
    const source = Buffer.from('abcdefgh');
    const sut = splitIntoBlocks(Readable.from([source], { objectMode: true }), 8);
    const first = (await sut.next()).value as Buffer;
    source.fill(0);
    expect(first.toString()).toBe('abcdefgh');
  });

  it('reads the source only as far as the consumer asks (backpressure)', async () => {
    let pulled = 0;
    async function* source() {
      for (let i = 0; i < 100; i++) {
        pulled++;
        yield Buffer.alloc(2, i);
      }
    }
    const sut = splitIntoBlocks(source(), 4);
    await sut.next();
    expect(pulled).toBe(2);
    await sut.next();
    expect(pulled).toBe(4);
    await sut.return(undefined);
  });

  it('rejects a nonsensical block size', async () => {
    await expect(collect(['x'], 0)).rejects.toThrow(RangeError);
  });
});

describe(`${splitIntoBlocks.name} with an allocator`, () => {
  it('fills the allocated buffers in place and cuts the last block as a view', async () => {
    const given: Buffer[] = [];
    const allocate = () => {
      const b = Buffer.alloc(4);
      given.push(b);
      return b;
    };
    const out: Buffer[] = [];
    for await (const b of splitIntoBlocks(Readable.from(['a', 'bc', 'def', 'ghij'], { objectMode: true }), 4, allocate))
      out.push(b);
    expect(out.map((b) => b.toString())).toEqual(['abcd', 'efgh', 'ij']);
    expect(given).toHaveLength(3);
    expect(out[0].buffer).toBe(given[0].buffer);
    expect(out[2].buffer).toBe(given[2].buffer);
  });

  it('allocates nothing for an empty body and refuses a buffer smaller than a block', async () => {
    let calls = 0;
    const none = splitIntoBlocks(Readable.from([], { objectMode: true }), 4, () => (calls++, Buffer.alloc(4)));
    expect((await none.next()).done).toBe(true);
    expect(calls).toBe(0);
    const small = splitIntoBlocks(Readable.from(['abcdef'], { objectMode: true }), 4, () => Buffer.alloc(2));
    await expect(small.next()).rejects.toThrow(RangeError);
  });
});
