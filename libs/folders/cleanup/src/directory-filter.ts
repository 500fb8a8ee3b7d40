import { BloomFilter } from 'bloomfilter';
import { FilterShape, sameShape } from './filter-shape';
import { DirectoryKind, filterElement, parentDirectories } from './parent-prefixes';

/**
 * The Bloom filter of non-empty directories (seed 000) over the `bloomfilter` package: a scan adds
 * every parent directory of every key it reads; a directory the filter does not contain has no
 * key below it (no false negatives), one it contains may still be empty (a false positive, which
 * only delays its cleanup by a generation).
 */
export class DirectoryFilter {
  private readonly saltPrefix: string;

  private constructor(
    private readonly bloom: BloomFilter,
    private readonly salt: number | undefined,
  ) {
    this.saltPrefix = salt === undefined ? '' : `${salt}\u0000`;
  }

  /**
   * An empty filter of `shape`. With a salt, every element is hashed as `<salt> NUL <element>`
   * (the package has no seed), so each generation's false positives are other directories.
   */
  static create(shape: FilterShape): DirectoryFilter {
    if (shape.salt !== undefined && !Number.isSafeInteger(shape.salt)) throw new RangeError(`filter salt must be an integer (got ${shape.salt})`);
    return new DirectoryFilter(new BloomFilter(shape.bits, shape.hashes), shape.salt);
  }

  /** A filter from its serialized chunks (see toChunks), which must add up to `shape.bits`. */
  static fromChunks(shape: FilterShape, chunks: readonly Uint8Array[]): DirectoryFilter {
    const bytes = chunks.reduce((n, c) => n + c.byteLength, 0);
    if (bytes * 8 !== shape.bits) throw new RangeError(`filter chunks hold ${bytes * 8} bits, the shape ${shape.bits}`);
    const words = new Uint32Array(shape.bits / 32);
    const view = new Uint8Array(words.buffer);
    let at = 0;
    for (const c of chunks) {
      view.set(c, at);
      at += c.byteLength;
    }
    const f = DirectoryFilter.create(shape);
    f.bloom.buckets.set(words);
    return f;
  }

  get shape(): FilterShape {
    return this.salt === undefined ? { bits: this.bloom.m, hashes: this.bloom.k } : { bits: this.bloom.m, hashes: this.bloom.k, salt: this.salt };
  }

  /** Adds every parent directory of `key` (a key without '/' adds nothing). */
  addKey(kind: DirectoryKind, bucketId: string, key: string): void {
    for (const dir of parentDirectories(key)) this.bloom.add(this.saltPrefix + filterElement(kind, bucketId, dir));
  }

  /** Adds one directory (ending with '/'). */
  addDirectory(kind: DirectoryKind, bucketId: string, directory: string): void {
    this.bloom.add(this.saltPrefix + filterElement(kind, bucketId, directory));
  }

  /** False: no key was added below `directory`. True: probably one was. */
  mayContain(kind: DirectoryKind, bucketId: string, directory: string): boolean {
    return this.bloom.test(this.saltPrefix + filterElement(kind, bucketId, directory));
  }

  /** Bits set. */
  setBits(): number {
    return this.bloom.countBits();
  }

  /** ORs `other` (same shape: same size, hashes and salt) into this filter, in place. */
  orWith(other: DirectoryFilter): void {
    const a = this.bloom.buckets;
    const b = other.bloom.buckets;
    if (!sameShape(this.shape, other.shape))
      throw new RangeError(`filters of different shapes (${describe(this.shape)} and ${describe(other.shape)}) cannot be combined`);
    for (let i = 0; i < a.length; i++) a[i] |= b[i];
  }

  /**
   * The filter's bits as chunks of at most `chunkBytes` bytes (a multiple of 4), little-endian
   * 32-bit words as the package keeps them; views of the filter's memory, not copies.
   */
  toChunks(chunkBytes: number): Uint8Array[] {
    if (!Number.isInteger(chunkBytes) || chunkBytes < 4 || chunkBytes % 4 !== 0)
      throw new RangeError(`chunk size must be a positive multiple of 4 bytes (got ${chunkBytes})`);
    const words = this.bloom.buckets;
    const out: Uint8Array[] = [];
    for (let at = 0; at < words.byteLength; at += chunkBytes)
      out.push(new Uint8Array(words.buffer, words.byteOffset + at, Math.min(chunkBytes, words.byteLength - at)));
    return out;
  }
}

function describe(s: FilterShape): string {
  return `${s.bits}/${s.hashes}${s.salt === undefined ? '' : `/salt ${s.salt}`}`;
}
