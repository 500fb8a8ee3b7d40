import { constants, promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { allocateAligned } from '../aligned-memory';
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

  describe('direct I/O', () => {
    /** Whether the test directory's filesystem takes O_DIRECT (tmpfs does not). */
    async function directIoWorksIn(dir: string): Promise<boolean> {
      try {
        const h = await fs.open(path.join(dir, 'probe'), constants.O_WRONLY | constants.O_CREAT | constants.O_DIRECT);
        await h.close();
        return true;
      } catch {
        return false;
      } finally {
        await fs.rm(path.join(dir, 'probe'), { force: true });
      }
    }

    /** The flags of every fs.open the store makes while `run` runs. */
    async function openFlags(run: () => Promise<unknown>): Promise<(string | number)[]> {
      const open = jest.spyOn(fs, 'open');
      try {
        await run();
        return open.mock.calls.map((c) => c[1] as string | number);
      } finally {
        open.mockRestore();
      }
    }
    const isDirect = (flags: string | number) => typeof flags === 'number' && (flags & constants.O_DIRECT) !== 0;

    it('writes aligned blocks of any length exactly, and never touches the memory past a block', async () => {
      const direct = await directIoWorksIn(root);
      for (const size of [1, 4095, 4096, 4097, 3 * 4096 + 17, 65536]) {
        const backing = allocateAligned(size + 8192)!;
        backing.fill(0xab);
        const data = backing.subarray(0, size);
        for (let i = 0; i < size; i++) data[i] = (i * 7 + size) & 255;
        const expected = Buffer.from(data);
        const id = newBlockId();
        const flags = await openFlags(() => sut.write(id, data));
        expect(flags.some(isDirect)).toBe(direct);
        expect((await fs.stat(sut.pathOf(id))).size).toBe(size);
        expect((await sut.read(id)).equals(expected)).toBe(true);
        expect(backing.subarray(size).every((b) => b === 0xab)).toBe(true);
        expect(await fs.readdir(path.dirname(sut.pathOf(id)))).toEqual([id]);
      }
      expect(sut.directIo).toBe(direct);
    });

    it('writes ordinary memory through the page cache, and everything so when told to', async () => {
      const plain = Buffer.alloc(8192, 3);
      expect((await openFlags(() => sut.write(newBlockId(), plain))).some(isDirect)).toBe(false);
      const off = new LocalFsBlockStore({ tier: 'standard', root, directIo: 'off' });
      const aligned = allocateAligned(8192)!.fill(4);
      const id = newBlockId();
      expect((await openFlags(() => off.write(id, aligned))).some(isDirect)).toBe(false);
      expect((await off.read(id)).equals(Buffer.alloc(8192, 4))).toBe(true);
    });

    it('falls back to buffered writes for good when the filesystem refuses O_DIRECT', async () => {
      const einval = Object.assign(new Error('EINVAL: invalid argument, open'), { code: 'EINVAL' });
      const real = fs.open.bind(fs);
      const open = jest
        .spyOn(fs, 'open')
        .mockImplementation((file, flags, mode) =>
          typeof flags === 'number' && (flags & constants.O_DIRECT) !== 0
            ? Promise.reject(einval)
            : real(file, flags, mode),
        );
      try {
        const refusals: string[] = [];
        const sut = new LocalFsBlockStore({ tier: 'standard', root, onDirectIoRefused: (r) => refusals.push(r) });
        const data = allocateAligned(3 * 4096 + 5)!.fill(9);
        const id = newBlockId();
        await sut.write(id, data);
        expect(sut.directIo).toBe(false);
        expect((await sut.read(id)).equals(Buffer.alloc(3 * 4096 + 5, 9))).toBe(true);
        open.mockClear();
        await sut.write(newBlockId(), data);
        expect(open.mock.calls.map((c) => c[1] as string | number).some(isDirect)).toBe(false);
        expect(refusals).toEqual(['EINVAL: invalid argument, open']); // said once, not per write
      } finally {
        open.mockRestore();
      }
    });

    it('turns a full disk into BlockStoreFullError for an aligned block too', async () => {
      const id = newBlockId();
      const tmp = `${sut.pathOf(id)}.tmp`;
      await fs.mkdir(path.dirname(tmp), { recursive: true });
      await fs.symlink('/dev/full', tmp);
      await expect(sut.write(id, allocateAligned(8192)!.fill(1))).rejects.toBeInstanceOf(BlockStoreFullError);
      expect(await fs.readdir(path.dirname(tmp))).toEqual([]);
    });
  
    it("with 'all', reads aligned buffers at aligned positions past the page cache, the rest through it", async () => {
      const direct = await directIoWorksIn(root);
      const sut = new LocalFsBlockStore({ tier: 'standard', root, directIo: 'all' });
      const size = 5 * 4096 + 123;
      const bytes = Buffer.from(Array.from({ length: size }, (_, i) => (i * 13) & 255));
      const id = newBlockId();
      await sut.write(id, bytes);
      const reader = await sut.openReader(id);
      try {
        const cases: [number, number][] = [
          [0, 4 * 4096], // whole pages: direct
          [4096, 2 * 4096 + 10], // direct pages, then 10 bytes buffered
          [4 * 4096, 2 * 4096], // runs past the end: short
          [100, 4096], // unaligned position: buffered
          [size, 4096], // at the end
        ];
        for (const [position, length] of cases) {
          const target = allocateAligned(length)!.fill(0xee);
          let got = 0;
          const flags = await openFlags(async () => {
            got = await reader.readInto(target, position);
          });
          const want = bytes.subarray(position, position + length);
          expect(got).toBe(want.length);
          expect(target.subarray(0, got).equals(want)).toBe(true);
          if (position === 0) expect(flags.some(isDirect)).toBe(direct); // the direct descriptor opens here
        }
        const plain = Buffer.alloc(8192);
        expect(await reader.readInto(plain, 0)).toBe(8192);
        expect(plain.equals(bytes.subarray(0, 8192))).toBe(true);
      } finally {
        await reader.close();
      }
    });

    it("reads through the page cache only by default ('writes') and with direct I/O off", async () => {
      for (const directIo of [undefined, 'writes', 'off'] as const) {
        const store = new LocalFsBlockStore({ tier: 'standard', root, directIo });
        const id = newBlockId();
        await store.write(id, Buffer.alloc(8192, 5));
        const reader = await store.openReader(id);
        try {
          const target = allocateAligned(8192)!;
          const flags = await openFlags(() => reader.readInto(target, 0));
          expect(flags).toEqual([]);
          expect(target.equals(Buffer.alloc(8192, 5))).toBe(true);
        } finally {
          await reader.close();
        }
      }
    });
  });
});
