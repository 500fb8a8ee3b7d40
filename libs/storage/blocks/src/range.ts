import type { BlockRef } from './block-store';

/** An inclusive byte range, as in an HTTP `Range: bytes=start-end` header. */
export interface BodyRange {
  start: number;
  endInclusive: number;
}

/** Bytes [start, endExclusive) of the block at `index` of a block list. */
export interface BlockSlice {
  index: number;
  block: BlockRef;
  start: number;
  endExclusive: number;
}

/** Total length of a body made of `blocks`. */
export function totalSize(blocks: readonly BlockRef[]): number {
  return blocks.reduce((n, b) => n + b.size, 0);
}

/**
 * The block slices that cover `range` of the concatenated blocks, in order, skipping blocks outside
 * it. No range means the whole body. `endInclusive` past the end is clamped (as HTTP does); a range
 * that starts past the end, or ends before it starts, is a caller bug and throws RangeError (the
 * gateway answers 416 before it gets here).
 */
export function planRange(blocks: readonly BlockRef[], range?: BodyRange): BlockSlice[] {
  const size = totalSize(blocks);
  if (!range) {
    return blocks
      .map((block, index) => ({ index, block, start: 0, endExclusive: block.size }))
      .filter((s) => s.endExclusive > 0);
  }
  const { start } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(range.endInclusive) || start < 0) {
    throw new RangeError(`invalid byte range ${start}-${range.endInclusive}`);
  }
  if (range.endInclusive < start)
    throw new RangeError(`byte range ${start}-${range.endInclusive} ends before it starts`);
  if (size === 0 || start >= size)
    throw new RangeError(`byte range starts at ${start}, past the end of ${size} bytes`);
  const end = Math.min(range.endInclusive + 1, size);
  const slices: BlockSlice[] = [];
  let offset = 0;
  blocks.forEach((block, index) => {
    const blockStart = offset;
    const blockEnd = offset + block.size;
    offset = blockEnd;
    if (blockEnd <= start || blockStart >= end) return;
    slices.push({
      index,
      block,
      start: Math.max(start, blockStart) - blockStart,
      endExclusive: Math.min(end, blockEnd) - blockStart,
    });
  });
  return slices;
}

/** Splits [start, endExclusive) into consecutive pieces of at most `pieceSize` bytes (a read unit). */
export function* pieces(start: number, endExclusive: number, pieceSize: number): Generator<[number, number]> {
  const step = Number.isFinite(pieceSize) && pieceSize > 0 ? pieceSize : endExclusive - start;
  for (let at = start; at < endExclusive; at += step) yield [at, Math.min(at + step, endExclusive)];
}

/** Indexes of the first and last fixed-size chunk holding bytes [start, endExclusive); undefined when empty. */
export function chunkSpan(
  start: number,
  endExclusive: number,
  chunkSize: number,
): { first: number; last: number } | undefined {
  if (endExclusive <= start) return undefined;
  return { first: Math.floor(start / chunkSize), last: Math.floor((endExclusive - 1) / chunkSize) };
}
