/**
 * Compares strings by Unicode code point, which is the order of their UTF-8 bytes (S3's key order
 * and Cassandra's text order), not JavaScript's UTF-16 order.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // surrogates (0xD800-0xDFFF) encode code points above 0xFFFF: rank them after 0xE000-0xFFFF
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    return x - y;
  }
  return a.length - b.length;
}
