import { promises as fs } from 'fs';
import * as path from 'path';
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
}

const isErrno = (e: unknown, code: string): boolean => (e as NodeJS.ErrnoException)?.code === code;

/**
 * Blocks as files on a local (or mounted) filesystem: `<root>/<id[0..2]>/<id[2..4]>/<id>`, so no
 * directory holds more than a few thousand files.
 *
 * Durability: a block is written to `<id>.tmp` in its final directory, fsynced, renamed over its
 * final name and the directory fsynced — after `write` resolves the block survives a power loss and
 * a reader never sees a partial file. The temp name is derived from the id, so `delete` also removes
 * the leftovers of a write that crashed (the GC deletes by id; it cannot list temp files).
 */
export class LocalFsBlockStore implements BlockStore {
  readonly tier: string;
  readonly root: string;
  private readonly fsync: boolean;
  private readonly knownDirs = new Set<string>();

  constructor(options: LocalFsBlockStoreOptions) {
    this.tier = options.tier;
    this.root = path.resolve(options.root);
    this.fsync = options.fsync ?? true;
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
      const handle = await fs.open(tmp, 'w', 0o640);
      try {
        let written = 0;
        while (written < data.length) {
          const { bytesWritten } = await handle.write(data, written, data.length - written, written);
          written += bytesWritten;
        }
        if (this.fsync) await handle.sync();
      } finally {
        await handle.close();
      }
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

  async read(blockId: string, start = 0, endExclusive?: number): Promise<Buffer> {
    const handle = await this.openForReading(blockId);
    try {
      const { size } = await handle.stat();
      const from = Math.min(Math.max(start, 0), size);
      const to = Math.min(endExclusive ?? size, size);
      if (to <= from) return Buffer.alloc(0);
      const out = Buffer.allocUnsafe(to - from);
      let got = 0;
      while (got < out.length) {
        const { bytesRead } = await handle.read(out, got, out.length - got, from + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
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

  /** One open file per block; reads go straight into the caller's buffers (no stat: a short read marks the end). */
  async openReader(blockId: string): Promise<BlockReader> {
    const handle = await this.openForReading(blockId);
    return {
      async readInto(target: Buffer, position: number): Promise<number> {
        let got = 0;
        while (got < target.length) {
          const { bytesRead } = await handle.read(target, got, target.length - got, position + got);
          if (bytesRead === 0) break;
          got += bytesRead;
        }
        return got;
      },
      close: () => handle.close(),
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
