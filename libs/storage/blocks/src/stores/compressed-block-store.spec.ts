import { randomBytes } from 'crypto';
import { InMemoryBlockStore } from '../testing';
import { CompressedBlockStore } from './compressed-block-store';

describe(CompressedBlockStore.name, () => {
  const text = Buffer.from('lifecycle transition '.repeat(5000));

  it.each(['gzip', 'brotli'] as const)(
    'stores %s-compressed blocks and reads them and their ranges back',
    async (algorithm) => {
      const inner = new InMemoryBlockStore('cold-raw');
      const sut = new CompressedBlockStore(inner, { tier: 'cold', algorithm });
      await sut.write('block-1', text);
      expect(inner.blocks.get('block-1')!.length).toBeLessThan(text.length / 10);
      expect(await sut.read('block-1')).toEqual(text);
      expect(await sut.read('block-1', 100, 250)).toEqual(text.subarray(100, 250));
      expect(await sut.read('block-1', text.length - 3, text.length + 10)).toEqual(
        text.subarray(text.length - 3),
      );
    },
  );

  it('keeps incompressible blocks raw', async () => {
    const inner = new InMemoryBlockStore('cold-raw');
    const sut = new CompressedBlockStore(inner, { tier: 'cold' });
    const noise = randomBytes(64 * 1024);
    await sut.write('block-2', noise);
    expect(inner.blocks.get('block-2')!.length).toBe(noise.length + 13);
    expect(await sut.read('block-2', 10, 20)).toEqual(noise.subarray(10, 20));
  });

  it('asks to be read a whole block at a time and delegates delete and exists', async () => {
    const inner = new InMemoryBlockStore('cold-raw');
    const sut = new CompressedBlockStore(inner, { tier: 'cold' });
    expect(sut.preferredReadSize).toBe(Infinity);
    await sut.write('block-3', text);
    expect(await sut.exists('block-3')).toBe(true);
    await sut.delete('block-3');
    expect(await sut.exists('block-3')).toBe(false);
  });

  it('rejects bytes that are not a compressed block', async () => {
    const inner = new InMemoryBlockStore('cold-raw');
    await inner.write('block-4', Buffer.from('plain bytes here'));
    await expect(new CompressedBlockStore(inner, { tier: 'cold' }).read('block-4')).rejects.toThrow(
      /corrupt/,
    );
  });
});
