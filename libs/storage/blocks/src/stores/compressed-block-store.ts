import { promisify } from 'util';
import * as zlib from 'zlib';
import type { BlockStore } from '../block-store';
import { BlockCorruptError } from '../errors';

export type CompressionAlgorithm = 'gzip' | 'brotli';

export interface CompressedBlockStoreOptions {
  /** Tier name of the compressed copies (e.g. 'cold'); differs from the inner store's. */
  tier: string;
  /** Default 'gzip' (fast enough to transition in the background); 'brotli' packs tighter, slower. */
  algorithm?: CompressionAlgorithm;
  /** zlib level 1–9 or brotli quality 0–11 (defaults: 6 and 5). */
  level?: number;
}

const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);
const brotli = promisify(zlib.brotliCompress);
const unbrotli = promisify(zlib.brotliDecompress);

const MAGIC = Buffer.from('OSB1');
const HEADER = MAGIC.length + 1 + 8;
const CODES = { raw: 0, gzip: 1, brotli: 2 } as const;

/**
 * The cold tier: a decorator that stores each block compressed in another BlockStore (its own
 * directory or table), used by lifecycle Transition. Layout of a stored block:
 * `"OSB1" | algorithm byte (0 raw, 1 gzip, 2 brotli) | uint64 BE original size | payload`; a block
 * that does not shrink is kept raw. Blocks are bounded (a few MiB), so a range read inflates the
 * whole block and slices it — `preferredReadSize` tells `openRead` to ask for whole blocks.
 */
export class CompressedBlockStore implements BlockStore {
  readonly tier: string;
  readonly preferredReadSize = Infinity;
  private readonly algorithm: CompressionAlgorithm;
  private readonly level?: number;

  constructor(
    private readonly inner: BlockStore,
    options: CompressedBlockStoreOptions,
  ) {
    this.tier = options.tier;
    this.algorithm = options.algorithm ?? 'gzip';
    this.level = options.level;
  }

  async write(blockId: string, data: Buffer): Promise<void> {
    const packed =
      this.algorithm === 'brotli'
        ? await brotli(data, {
            params: {
              [zlib.constants.BROTLI_PARAM_QUALITY]: this.level ?? 5,
              [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length,
            },
          })
        : await gzip(data, { level: this.level ?? 6 });
    const useRaw = packed.length >= data.length;
    const header = Buffer.alloc(HEADER);
    MAGIC.copy(header, 0);
    header[MAGIC.length] = useRaw ? CODES.raw : CODES[this.algorithm];
    header.writeBigUInt64BE(BigInt(data.length), MAGIC.length + 1);
    await this.inner.write(blockId, Buffer.concat([header, useRaw ? data : packed]));
  }

  async read(blockId: string, start = 0, endExclusive?: number): Promise<Buffer> {
    const stored = await this.inner.read(blockId);
    if (stored.length < HEADER || !stored.subarray(0, MAGIC.length).equals(MAGIC)) {
      throw new BlockCorruptError(blockId, 'not a compressed block');
    }
    const code = stored[MAGIC.length];
    const size = Number(stored.readBigUInt64BE(MAGIC.length + 1));
    const payload = stored.subarray(HEADER);
    let data: Buffer;
    if (code === CODES.raw) data = payload;
    else if (code === CODES.gzip) data = await gunzip(payload);
    else if (code === CODES.brotli) data = await unbrotli(payload);
    else throw new BlockCorruptError(blockId, `unknown compression ${code}`);
    if (data.length !== size)
      throw new BlockCorruptError(blockId, `inflated to ${data.length} bytes, expected ${size}`);
    const from = Math.min(Math.max(start, 0), size);
    const to = Math.min(endExclusive ?? size, size);
    return from === 0 && to === size ? data : data.subarray(from, Math.max(from, to));
  }

  delete(blockId: string): Promise<void> {
    return this.inner.delete(blockId);
  }

  exists(blockId: string): Promise<boolean> {
    return this.inner.exists(blockId);
  }

  holdsAnyBytes(blockId: string): Promise<boolean> {
    return this.inner.holdsAnyBytes ? this.inner.holdsAnyBytes(blockId) : this.inner.exists(blockId);
  }
}
