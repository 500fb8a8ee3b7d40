import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { newBlockId } from '../block-id';
import { BlockNotFoundError, BlockStoreFullError } from '../errors';
import { LocalFsBlockStore } from './local-fs-block-store';

describe(LocalFsBlockStore.name, () => {
  let root: string;
  let sut: LocalFsBlockStore;

  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'ostore-fs-blocks-'));
    sut = new LocalFsBlockStore({ tier: 'standard', root });
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  it('writes a block under a two-level fan-out and reads it back', async () => {
    const id = newBlockId();
    const data = Buffer.from('hello, blocks');
    await sut.write(id, data);
    expect(sut.pathOf(id)).toBe(path.join(root, id.slice(0, 2), id.slice(2, 4), id));
    expect(await sut.read(id)).toEqual(data);
    expect(await sut.exists(id)).toBe(true);
    expect(await fs.readdir(path.dirname(sut.pathOf(id)))).toEqual([id]); // no temp file left
  });

  it('reads ranges, clamping past the end', async () => {
    const id = newBlockId();
    await sut.write(id, Buffer.from('0123456789'));
    expect((await sut.read(id, 2, 5)).toString()).toBe('234');
    expect((await sut.read(id, 8)).toString()).toBe('89');
    expect((await sut.read(id, 8, 100)).toString()).toBe('89');
    expect((await sut.read(id, 20, 30)).length).toBe(0);
  });

  it('overwrites the same id with the same bytes harmlessly, also concurrently', async () => {
    const id = newBlockId();
    const data = Buffer.alloc(256 * 1024, 7);
    await Promise.all([sut.write(id, data), sut.write(id, data), sut.write(id, data)]);
    expect(await sut.read(id)).toEqual(data);
  });

  it('deletes a block and the leftover of a crashed write; a missing block is no error', async () => {
    const id = newBlockId();
    await sut.write(id, Buffer.from('x'));
    await fs.writeFile(`${sut.pathOf(id)}.tmp`, 'partial');
    await sut.delete(id);
    expect(await sut.exists(id)).toBe(false);
    expect(await fs.readdir(path.dirname(sut.pathOf(id)))).toEqual([]);
    await expect(sut.delete(id)).resolves.toBeUndefined();
    await expect(sut.delete(newBlockId())).resolves.toBeUndefined();
  });

  it('turns a full disk into BlockStoreFullError and leaves no temp file behind', async () => {
    // The temp file is a link to /dev/full, whose every write fails with a real ENOSPC.
    const id = newBlockId();
    const tmp = `${sut.pathOf(id)}.tmp`;
    await fs.mkdir(path.dirname(tmp), { recursive: true });
    await fs.symlink('/dev/full', tmp);
    await expect(sut.write(id, Buffer.alloc(4096, 1))).rejects.toBeInstanceOf(BlockStoreFullError);
    expect(await fs.readdir(path.dirname(tmp))).toEqual([]);
    expect(await sut.holdsAnyBytes(id)).toBe(false);
    // Space returned: the same block writes fine without a new store.
    await sut.write(id, Buffer.from('after'));
    expect((await sut.read(id)).toString()).toBe('after');
  });

  it('turns a fan-out directory that cannot be created for lack of space into BlockStoreFullError', async () => {
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, mkdir'), { code: 'ENOSPC' });
    const mkdir = jest.spyOn(fs, 'mkdir').mockRejectedValueOnce(enospc);
    try {
      const id = newBlockId();
      await expect(sut.write(id, Buffer.from('x'))).rejects.toBeInstanceOf(BlockStoreFullError);
      // Space returned: the directory is created on the next write (it was never remembered as made).
      await sut.write(id, Buffer.from('after'));
      expect((await sut.read(id)).toString()).toBe('after');
    } finally {
      mkdir.mockRestore();
    }
  });

  it('throws BlockNotFoundError for a missing block', async () => {
    await expect(sut.read(newBlockId())).rejects.toBeInstanceOf(BlockNotFoundError);
    await expect(sut.openReader(newBlockId())).rejects.toBeInstanceOf(BlockNotFoundError);
  });

  it("reads an open block into the caller's buffers at any position, short only at the end", async () => {
    const id = newBlockId();
    await sut.write(id, Buffer.from('0123456789'));
    const reader = await sut.openReader(id);
    try {
      const target = Buffer.alloc(4, '.');
      expect(await reader.readInto(target, 3)).toBe(4);
      expect(target.toString()).toBe('3456');
      expect(await reader.readInto(target, 0)).toBe(4);
      expect(target.toString()).toBe('0123');
      expect(await reader.readInto(target, 8)).toBe(2);
      expect(target.subarray(0, 2).toString()).toBe('89');
      expect(await reader.readInto(target, 10)).toBe(0);
    } finally {
      await reader.close();
    }
  });

  it('refuses ids that would escape the root', async () => {
    await expect(sut.write('../../etc', Buffer.from('x'))).rejects.toThrow(/invalid block id/);
  });
});
