/**
 * Cuts a byte stream into blocks of exactly `blockSize` bytes (the last one shorter, never empty).
 *
 * Pull-based: the source is read only while the consumer asks for the next block, so a consumer
 * that awaits the store of block n before asking for block n+2 holds at most two blocks in memory
 * and the source (an HTTP request) is paused by backpressure meanwhile.
 *
 * With `allocate`, each block is filled in place in a buffer of `blockSize` bytes that it returns
 * (e.g. from a pool, in shared memory); the last block is then a view of its first bytes.
 * Without it, each block is a fresh copy. Either way a block never aliases the source's chunks.
 */
export async function* splitIntoBlocks(
  source: AsyncIterable<Buffer | Uint8Array | string>,
  blockSize: number,
  allocate?: () => Buffer,
): AsyncGenerator<Buffer> {
  if (!Number.isSafeInteger(blockSize) || blockSize <= 0)
    throw new RangeError(`invalid block size ${blockSize}`);
  if (allocate) {
    yield* fillInPlace(source, blockSize, allocate);
    return;
  }
  let parts: Buffer[] = [];
  let filled = 0;
  for await (const chunk of source) {
    let buf = asBuffer(chunk);
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

async function* fillInPlace(
  source: AsyncIterable<Buffer | Uint8Array | string>,
  blockSize: number,
  allocate: () => Buffer,
): AsyncGenerator<Buffer> {
  let block: Buffer | undefined;
  let filled = 0;
  for await (const chunk of source) {
    let buf = asBuffer(chunk);
    while (buf.length > 0) {
      if (!block) {
        block = allocate();
        if (block.length < blockSize) throw new RangeError(`allocated ${block.length} bytes for a block of ${blockSize}`);
      }
      const take = Math.min(blockSize - filled, buf.length);
      buf.copy(block, filled, 0, take);
      filled += take;
      buf = buf.subarray(take);
      if (filled === blockSize) {
        const full = block.length === blockSize ? block : block.subarray(0, blockSize);
        block = undefined;
        filled = 0;
        yield full;
      }
    }
  }
  if (block && filled > 0) yield block.subarray(0, filled);
}

function asBuffer(chunk: Buffer | Uint8Array | string): Buffer {
  return typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
}
