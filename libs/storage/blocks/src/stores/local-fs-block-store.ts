import { constants, promises as fs } from 'fs';
import * as path from 'path';
import { AlignedPages, DIRECT_IO_ALIGNMENT, isAligned } from '../aligned-memory';
import { assertBlockId } from '../block-id';
import type { BlockReader, BlockStore } from '../block-store';
import { BlockNotFoundError, BlockStoreFullError } from '../errors';

export interface LocalFsBlockStoreOptions {
  /** Tier name recorded in every BlockRef written here (e.g. 'standard'). */
  tier: string;
  /** Directory holding the blocks; created on first write. */
  root: string;
  /**
   * fsync file and directory on write and delete (default true). Only tests that do not care about
   * power loss turn it off.
   */
  fsync?: boolean;
  /**
   * Which I/O bypasses the page cache with O_DIRECT (default 'writes'): 'writes' writes blocks held
   * in page-aligned memory (see aligned-memory.ts) that way, 'all' also reads into aligned buffers
   * at aligned offsets so, 'off' nothing. Reads stay buffered by default: a large object read again
   * is served from the page cache, and the bench's 64 MiB GETs ran 10–20 % slower with direct
   * reads (`2026-12-06-vs-minio.s38-ab-direct-reads.md`). A filesystem that refuses O_DIRECT
   * (tmpfs, some FUSE and network mounts) turns it off for the store the first time; other buffers
   * always go through the page cache.
   */
  directIo?: DirectIoMode;
  /** Told once, with the refusal's message, when the filesystem refuses O_DIRECT (for the app's log). */
  onDirectIoRefused?: (reason: string) => void;
}

/** See LocalFsBlockStoreOptions.directIo. */
export type DirectIoMode = 'all' | 'writes' | 'off';

/** What O_DIRECT means on this platform (0 where Node does not define it: no direct I/O). */
const O_DIRECT: number = (constants as { O_DIRECT?: number }).O_DIRECT ?? 0;

const isErrno = (e: unknown, code: string): boolean => (e as NodeJS.ErrnoException)?.code === code;

/**
 * Reads up to `length` bytes into `buf` from `position`: fewer only at the end of the file. On an
 * O_DIRECT descriptor (`direct`; buffer, length and position aligned) a read that stops off the
 * alignment has reached the end, and asking again there would be refused.
 */
async function readFully(
  handle: fs.FileHandle,
  buf: Buffer,
  length: number,
  position: number,
  direct = false,
): Promise<number> {
  let got = 0;
  while (got < length) {
    const { bytesRead } = await handle.read(buf, got, length - got, position + got);
    got += bytesRead;
    if (bytesRead === 0 || (direct && bytesRead % DIRECT_IO_ALIGNMENT !== 0)) break;
  }
  return got;
}

/** Writes `length` bytes of `buf` at `position`, however many calls the kernel takes. */
async function writeFully(handle: fs.FileHandle, buf: Buffer, length: number, position: number): Promise<void> {
  let written = 0;
  while (written < length) {
    const { bytesWritten } = await handle.write(buf, written, length - written, position + written);
    written += bytesWritten;
  }
}

/**
 * Blocks as files on a local (or mounted) filesystem: `<root>/<id[0..2]>/<id[2..4]>/<id>`, so no
 * directory holds more than a few thousand files.
 *
 * Durability: a block is written to `<id>.tmp` in its final directory, fsynced, renamed over its
 * final name and the directory fsynced — after `write` resolves the block survives a power loss and
 * a reader never sees a partial file. The temp name is derived from the id, so `delete` also removes
 * the leftovers of a write that crashed (the GC deletes by id; it cannot list temp files).
 *
 * Large bodies' blocks arrive in page-aligned memory and are written with O_DIRECT (`directIo`):
 * the block's bytes rounded up to a whole 4 KiB with zeros, then the file cut back to the block's
 * length before the fsync, so the file holds exactly the block either way.
 */
export class LocalFsBlockStore implements BlockStore {
  readonly tier: string;
  readonly root: string;
  private readonly fsync: boolean;
  private direct: boolean;
  private readonly directReads: boolean;
  private readonly onDirectIoRefused?: (reason: string) => void;
  private readonly knownDirs = new Set<string>();
  private readonly scratch = new AlignedPages();

  constructor(options: LocalFsBlockStoreOptions) {
    this.tier = options.tier;
    this.root = path.resolve(options.root);
    this.fsync = options.fsync ?? true;
    const mode = options.directIo ?? 'writes';
    this.direct = mode !== 'off' && O_DIRECT !== 0;
    this.directReads = mode === 'all';
    this.onDirectIoRefused = options.onDirectIoRefused;
  }

  /** Turns O_DIRECT off for good after a refusal, and says so once. */
  private refuseDirect(e: unknown): void {
    if (!this.direct) return;
    this.direct = false;
    this.onDirectIoRefused?.((e as Error).message);
  }

  /** Whether aligned blocks are written with O_DIRECT (false once the filesystem refused it). */
  get directIo(): boolean {
    return this.direct;
  }

  /** Absolute path of a block's file. */
  pathOf(blockId: string): string {
    assertBlockId(blockId);
    return path.join(this.root, blockId.slice(0, 2), blockId.slice(2, 4), blockId);
  }

  async write(blockId: string, data: Buffer): Promise<void> {
    const file = this.pathOf(blockId);
    const dir = path.dirname(file);
    try {
      await this.ensureDir(dir);
    } catch (e) {
      // A fan-out directory that cannot be created for lack of space is a full store too.
      throw this.fullOr(e, blockId);
    }
    const tmp = `${file}.tmp`;
    try {
      if (!(await this.writeDirect(tmp, data))) await this.writeBuffered(tmp, data);
    } catch (e) {
      // A failed write leaves no partial temp file eating the space it ran out of.
      await fs.unlink(tmp).catch(() => undefined);
      throw this.fullOr(e, blockId);
    }
    try {
      await fs.rename(tmp, file);
    } catch (e) {
      // A concurrent writer of the same id (same bytes) renamed our shared temp file first.
      if (!(isErrno(e, 'ENOENT') && (await this.exists(blockId)))) throw e;
    }
    if (this.fsync) await this.syncDir(dir);
  }

  private async writeBuffered(tmp: string, data: Buffer): Promise<void> {
    const handle = await fs.open(tmp, 'w', 0o640);
    try {
      await writeFully(handle, data, data.length, 0);
      if (this.fsync) await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /**
   * Writes `data` to `tmp` with O_DIRECT when it can: its whole 4 KiB pages straight from `data`,
   * the last partial page through a zero-padded scratch page, then the file cut back to the
   * block's length. False (the caller writes it buffered) when `data` is not aligned memory or the
   * filesystem refuses O_DIRECT; `data` itself is never written to.
   */
  private async writeDirect(tmp: string, data: Buffer): Promise<boolean> {
    if (!this.direct || !isAligned(data)) return false;
    const tail = data.length % DIRECT_IO_ALIGNMENT;
    const head = data.length - tail;
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | O_DIRECT, 0o640);
    } catch (e) {
      if (!isErrno(e, 'EINVAL')) throw e;
      this.refuseDirect(e); // this filesystem has no O_DIRECT
      return false;
    }
    const page = tail ? this.scratch.acquire() : undefined;
    try {
      if (tail && !page) return false;
      try {
        await writeFully(handle, data, head, 0);
        if (page) {
          data.copy(page, 0, head);
          page.fill(0, tail);
          await writeFully(handle, page, DIRECT_IO_ALIGNMENT, head);
          await handle.truncate(data.length);
        }
      } catch (e) {
        // Opened, but the device's alignment is not ours: buffered from now on, this block included.
        if (!isErrno(e, 'EINVAL')) throw e;
        this.refuseDirect(e);
        return false;
      }
      if (this.fsync) await handle.sync();
      return true;
    } finally {
      if (page) this.scratch.release(page);
      await handle.close();
    }
  }

  async read(blockId: string, start = 0, endExclusive?: number): Promise<Buffer> {
    const handle = await this.openForReading(blockId);
    try {
      const { size } = await handle.stat();
      const from = Math.min(Math.max(start, 0), size);
      const to = Math.min(endExclusive ?? size, size);
      if (to <= from) return Buffer.alloc(0);
      const out = Buffer.allocUnsafe(to - from);
      const got = await readFully(handle, out, out.length, from);
      return got === out.length ? out : out.subarray(0, got);
    } finally {
      await handle.close();
    }
  }

  private async openForReading(blockId: string): Promise<fs.FileHandle> {
    try {
      return await fs.open(this.pathOf(blockId), 'r');
    } catch (e) {
      if (isErrno(e, 'ENOENT')) throw new BlockNotFoundError(blockId, this.tier);
      throw e;
    }
  }

  /**
   * One open file per block; reads go straight into the caller's buffers (no stat: a short read
   * marks the end). With mode 'all', aligned buffers at aligned positions are read with O_DIRECT on a
   * second descriptor opened at the first such read; a length's last partial 4 KiB, and every
   * other read, through the page cache.
   */
  async openReader(blockId: string): Promise<BlockReader> {
    const handle = await this.openForReading(blockId);
    let direct: fs.FileHandle | undefined;
    const directRead = async (target: Buffer, length: number, position: number): Promise<number> => {
      if (!direct) {
        try {
          direct = await fs.open(this.pathOf(blockId), constants.O_RDONLY | O_DIRECT);
        } catch (e) {
          if (!isErrno(e, 'EINVAL')) throw e;
          this.refuseDirect(e);
          return -1;
        }
      }
      try {
        return await readFully(direct, target, length, position, true);
      } catch (e) {
        if (!isErrno(e, 'EINVAL')) throw e;
        this.refuseDirect(e); // opened, but the device's alignment is not ours
        return -1;
      }
    };
    return {
      readInto: async (target: Buffer, position: number): Promise<number> => {
        const head = target.length - (target.length % DIRECT_IO_ALIGNMENT);
        let got = 0;
        if (this.direct && this.directReads && head > 0 && position % DIRECT_IO_ALIGNMENT === 0 && isAligned(target)) {
          const read = await directRead(target, head, position);
          if (read >= 0) {
            if (read < head) return read; // the block's end
            got = read;
          }
        }
        return got + (await readFully(handle, target.subarray(got), target.length - got, position + got));
      },
      close: async () => {
        await direct?.close();
        await handle.close();
      },
    };
  }

  async delete(blockId: string): Promise<void> {
    const file = this.pathOf(blockId);
    let removed = false;
    for (const p of [file, `${file}.tmp`]) {
      try {
        await fs.unlink(p);
        removed = true;
      } catch (e) {
        if (!isErrno(e, 'ENOENT')) throw e;
      }
    }
    // Without the directory fsync a power loss could bring the file back, as an orphan nobody tracks.
    if (removed && this.fsync) await this.syncDir(path.dirname(file));
  }

  async exists(blockId: string): Promise<boolean> {
    return this.isFile(this.pathOf(blockId));
  }

  /** The block, or the temp file of a write that died before its rename. */
  async holdsAnyBytes(blockId: string): Promise<boolean> {
    const file = this.pathOf(blockId);
    return (await this.isFile(file)) || (await this.isFile(`${file}.tmp`));
  }

  private async isFile(p: string): Promise<boolean> {
    try {
      await fs.stat(p);
      return true;
    } catch (e) {
      if (isErrno(e, 'ENOENT')) return false;
      throw e;
    }
  }

  /** A BlockStoreFullError for an out-of-space errno (ENOSPC, EDQUOT), else the error itself. */
  private fullOr(e: unknown, blockId: string): unknown {
    if (isErrno(e, 'ENOSPC') || isErrno(e, 'EDQUOT'))
      return new BlockStoreFullError(blockId, this.tier, (e as NodeJS.ErrnoException).code ?? 'ENOSPC');
    return e;
  }

  /** Creates the fan-out directories once per process, fsyncing each parent that gained an entry. */
  private async ensureDir(dir: string): Promise<void> {
    if (this.knownDirs.has(dir)) return;
    const created = await fs.mkdir(dir, { recursive: true });
    if (created && this.fsync) {
      // mkdir -p returns the first directory it created; every parent from there up to it gained an entry.
      let d = dir;
      const stop = path.dirname(created);
      while (d !== stop && d.length >= this.root.length) {
        await this.syncDir(path.dirname(d));
        d = path.dirname(d);
      }
    }
    this.knownDirs.add(dir);
  }

  private async syncDir(dir: string): Promise<void> {
    const handle = await fs.open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}
