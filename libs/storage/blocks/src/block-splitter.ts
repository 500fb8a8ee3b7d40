/**
 * Cuts a byte stream into blocks of exactly `blockSize` bytes (the last one shorter, never empty).
 *
 * Pull-based: the source is read only while the consumer asks for the next block, so a consumer
 * that awaits the store of block n before asking for block n+2 holds at most two blocks in memory
 * and the source (an HTTP request) is paused by backpressure meanwhile.
 */
export async function* splitIntoBlocks(
  source: AsyncIterable<Buffer | Uint8Array | string>,
  blockSize: number,
): AsyncGenerator<Buffer> {
  if (!Number.isSafeInteger(blockSize) || blockSize <= 0)
    throw new RangeError(`invalid block size ${blockSize}`);
  let parts: Buffer[] = [];
  let filled = 0;
  for await (const chunk of source) {
    let buf =
      typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    while (buf.length > 0) {
      const take = Math.min(blockSize - filled, buf.length);
      parts.push(take === buf.length ? buf : buf.subarray(0, take));
      filled += take;
      buf = buf.subarray(take);
      if (filled === blockSize) {
        // One copy per block: concat detaches the block from the source's (possibly pooled) chunks.
        const block = Buffer.concat(parts, filled);
        parts = [];
        filled = 0;
        yield block;
      }
    }
  }
  if (filled > 0) yield Buffer.concat(parts, filled);
}
