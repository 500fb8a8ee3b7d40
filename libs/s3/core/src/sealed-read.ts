import { finished, Readable } from 'stream';
import type { BlockEntry } from '@ostore/metastore/data-access';
import { partDataKey, plainSizeOf, sealedRange } from '@ostore/s3/crypto';
import type { ByteRange } from './api';

/** One part of a stored body as its manifest lists it: its blocks and where its plaintext lies. */
export interface StoredPart {
  partNumber: number;
  blocks: BlockEntry[];
  plainStart: number;
  plainSize: number;
}

/**
 * The parts of a manifest in order (its blocks grouped by part number; a simple object is part 1).
 * Blocks record stored sizes: for an encrypted object (`sealed`) each part's plaintext size follows
 * from its sealed size (every part is a sealed body of its own, see partDataKey).
 */
export function partsOf(blocks: BlockEntry[], sealed: boolean): StoredPart[] {
  const parts: StoredPart[] = [];
  for (const b of blocks) {
    const n = b.partNumber ?? 1;
    let last = parts[parts.length - 1];
    if (!last || last.partNumber !== n) {
      last = { partNumber: n, blocks: [], plainStart: 0, plainSize: 0 };
      parts.push(last);
    }
    last.blocks.push(b);
    last.plainSize += b.size;
  }
  let offset = 0;
  for (const p of parts) {
    if (sealed) p.plainSize = plainSizeOf(p.plainSize);
    p.plainStart = offset;
    offset += p.plainSize;
  }
  return parts;
}

/** Reads a byte range of the concatenated bytes of `blocks` (the block manager's openRead). */
export type BlockReader = (blocks: BlockEntry[], range: ByteRange) => Readable;

/**
 * A plaintext range of an encrypted body stored in blocks (`plainBytes` > 0): one sealed body under
 * `dataKey`, or for a multipart object one per part, each under its part key. Only the segments the
 * range covers are read; a part that fails authentication fails the stream.
 */
export function openSealedBlocks(read: BlockReader, blocks: BlockEntry[], plainBytes: number, dataKey: Buffer, multipart: boolean, range?: ByteRange): Readable {
  if (!multipart) return openSealedBody(read, blocks, dataKey, plainBytes, range);
  const want = range ?? { start: 0, endInclusive: plainBytes - 1 };
  const parts = partsOf(blocks, true).filter((p) => p.plainSize > 0 && p.plainStart <= want.endInclusive && p.plainStart + p.plainSize - 1 >= want.start);
  async function* each(): AsyncGenerator<Buffer> {
    for (const p of parts) {
      const local = {
        start: Math.max(want.start, p.plainStart) - p.plainStart,
        endInclusive: Math.min(want.endInclusive, p.plainStart + p.plainSize - 1) - p.plainStart,
      };
      yield* openSealedBody(read, p.blocks, partDataKey(dataKey, p.partNumber), p.plainSize, local) as AsyncIterable<Buffer>;
    }
  }
  return Readable.from(each(), { objectMode: false });
}

function openSealedBody(read: BlockReader, blocks: BlockEntry[], key: Buffer, plainBytes: number, range?: ByteRange): Readable {
  const sealed = sealedRange(key, plainBytes, range);
  const raw = read(blocks, { start: sealed.start, endInclusive: sealed.endInclusive });
  const open = sealed.open();
  finished(raw, (err) => {
    if (err) open.destroy(err);
  });
  return raw.pipe(open);
}
