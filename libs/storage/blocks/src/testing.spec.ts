import { Readable } from 'stream';
import { BlockUnavailableError } from './errors';
import { InMemoryBlockManager } from './testing';

const text = async (r: Readable) => {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(c as Buffer);
  return Buffer.concat(parts).toString();
};

describe(InMemoryBlockManager.name, () => {
  it('follows the block lifecycle: in flight, referenced, released', async () => {
    const sut = new InMemoryBlockManager(4);
    const body = await sut.writeStream(Readable.from([Buffer.from('hello world')]));
    expect(body.size).toBe(11);
    expect(body.blocks.map((b) => b.size)).toEqual([4, 4, 3]);
    expect(sut.inFlightBlockIds()).toHaveLength(3);
    await sut.addRefs(body.blocks, 'v:1');
    await sut.addRefs(body.blocks, 'v:2');
    expect(await text(sut.openRead(body.blocks, { start: 3, endInclusive: 8 }))).toBe('lo wor');
    await sut.releaseRefs(body.blocks, 'v:1');
    expect(sut.storedBytes()).toBe(11);
    await sut.releaseRefs(body.blocks, 'v:2');
    expect(sut.storedBytes()).toBe(0);
    await expect(sut.addRefs(body.blocks, 'v:3')).rejects.toBeInstanceOf(BlockUnavailableError);
  });

  it('moves references: the block keeps its bytes and loses only the moved reference', async () => {
    const sut = new InMemoryBlockManager(4);
    const body = await sut.writeStream(Readable.from([Buffer.from('hello')]));
    await sut.addRefs(body.blocks, 'p:1');
    await sut.addRefs([body.blocks[0]], 'v:other');
    await sut.moveRefs(body.blocks.map((block) => ({ block, from: 'p:1' })), 'v:2');
    expect(sut.refsOf(body.blocks[0].blockId)).toEqual(['v:2', 'v:other']);
    expect(sut.refsOf(body.blocks[1].blockId)).toEqual(['v:2']);
    expect(sut.storedBytes()).toBe(5);
    await sut.releaseRefs(body.blocks, 'v:2');
    expect(sut.storedBlockIds()).toEqual([body.blocks[0].blockId]);
    await expect(sut.moveRefs([{ block: body.blocks[1], from: 'v:2' }], 'v:3')).rejects.toBeInstanceOf(
      BlockUnavailableError,
    );
  });

  it('discards only unreferenced blocks and injects faults once', async () => {
    const sut = new InMemoryBlockManager(4);
    const a = await sut.writeStream(Readable.from([Buffer.from('aaaa')]));
    const b = await sut.writeStream(Readable.from([Buffer.from('bbbb')]));
    await sut.addRefs(a.blocks, 'v:1');
    await sut.discard([...a.blocks, ...b.blocks]);
    expect(sut.storedBlockIds()).toEqual([a.blocks[0].blockId]);
    sut.failNext('addRefs', new Error('boom'));
    await expect(sut.addRefs(a.blocks, 'v:2')).rejects.toThrow('boom');
    await expect(sut.addRefs(a.blocks, 'v:2')).resolves.toBeUndefined();
  });
});
