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
