import type { BlockEntry } from '@ostore/metastore/data-access';
import type { ByteRange } from './api';

/** One piece of an UploadPartCopy: a source block shared by reference, or a byte range copied. */
export type PartCopyPiece = { shared: BlockEntry } | { copy: ByteRange };

/**
 * How UploadPartCopy builds a part from `range` of a source: source blocks lying wholly inside the
 * range are shared by reference, the partial blocks at its edges are copied (adjacent copies
 * merged). An inline source (no blocks) is copied whole. `size` 0 gives an empty part.
 */
export function planPartCopy(srcBlocks: BlockEntry[], range: ByteRange, size: number, inline: boolean): PartCopyPiece[] {
  const pieces: PartCopyPiece[] = inline && size > 0 ? [{ copy: range }] : [];
  let offset = 0;
  for (const b of srcBlocks) {
    const bStart = offset;
    const bEnd = offset + b.size - 1;
    offset += b.size;
    if (size === 0 || bEnd < range.start || bStart > range.endInclusive || b.size === 0) continue;
    if (bStart >= range.start && bEnd <= range.endInclusive) pieces.push({ shared: { ...b, partNumber: undefined } });
    else {
      const c = { start: Math.max(bStart, range.start), endInclusive: Math.min(bEnd, range.endInclusive) };
      const prev = pieces[pieces.length - 1];
      if (prev && 'copy' in prev && prev.copy.endInclusive + 1 === c.start) prev.copy.endInclusive = c.endInclusive;
      else pieces.push({ copy: c });
    }
  }
  return pieces;
}
