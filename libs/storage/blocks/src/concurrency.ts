/**
 * Runs `fn` over `items` with at most `limit` in flight, waits for all of them (a failure does not
 * abandon the others half-way) and returns the failures in item order.
 */
export async function settleLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<unknown[]> {
  const errors: { i: number; e: unknown }[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) {
      try {
        await fn(items[i]);
      } catch (e) {
        errors.push({ i, e });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return errors.sort((a, b) => a.i - b.i).map((x) => x.e);
}

/** The same as settleLimited over an async source, never pulling more than `limit` items ahead. */
export async function settleLimitedAsync<T>(
  source: AsyncIterable<T>,
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<unknown[]> {
  const errors: unknown[] = [];
  const running = new Set<Promise<void>>();
  for await (const item of source) {
    const p: Promise<void> = fn(item)
      .catch((e) => {
        errors.push(e);
      })
      .finally(() => running.delete(p));
    running.add(p);
    if (running.size >= Math.max(1, limit)) await Promise.race(running);
  }
  await Promise.all(running);
  return errors;
}

/** The blocks of a list without repeats (a body may not repeat blocks, but a caller's list might). */
export function uniqueById<T extends { blockId: string }>(blocks: readonly T[]): T[] {
  const seen = new Set<string>();
  return blocks.filter((b) => !seen.has(b.blockId) && (seen.add(b.blockId), true));
}
