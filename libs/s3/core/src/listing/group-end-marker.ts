/** The greatest code point: F4 8F BF BF in UTF-8, no valid UTF-8 sequence sorts after it. */
const MAX_CHAR = '\u{10FFFF}';

/**
 * The marker (ListObjects' NextMarker, a NextKeyMarker) that continues a listing cut at its level
 * budget after every key of the directory `cut`: `cut` followed by U+10FFFF, repeated until it is
 * longer than any key of at most `maxKeyBytes` bytes. Every valid key that starts with `cut` is
 * then shorter and sorts before it (at the first byte where they differ, a valid UTF-8 byte is at
 * most the marker's), and every key after the group sorts after it (it starts with `cut`). So the
 * client's next request, a plain marker, is walked like any other start key (level budget, binary
 * search of the deepest existing level), without a token or a special syntax.
 */
export function groupEndMarker(cut: string, maxKeyBytes: number): string {
  const room = Math.max(0, maxKeyBytes - Buffer.byteLength(cut, 'utf8'));
  return cut + MAX_CHAR.repeat(Math.floor(room / 4) + 1);
}
