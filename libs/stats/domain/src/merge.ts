/**
 * Merges sources that are each sorted by `compare` into one sorted stream, holding one pending
 * item per source (the readers' fan-out over shards and layouts: each source is one partition's
 * paged clustering range). The sources' first items are fetched concurrently.
 */
export async function* mergeSorted<T>(
  sources: AsyncIterable<T>[],
  compare: (a: T, b: T) => number,
): AsyncGenerator<T> {
  const iterators = sources.map((s) => s[Symbol.asyncIterator]());
  const heads: (IteratorResult<T> | undefined)[] = await Promise.all(iterators.map((it) => it.next()));
  try {
    for (;;) {
      let best = -1;
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i];
        if (!h || h.done) continue;
        if (best < 0 || compare(h.value, (heads[best] as IteratorYieldResult<T>).value) < 0) best = i;
      }
      if (best < 0) return;
      yield (heads[best] as IteratorYieldResult<T>).value;
      heads[best] = await iterators[best].next();
    }
  } finally {
    await Promise.all(iterators.map((it, i) => (heads[i]?.done ? undefined : it.return?.())));
  }
}
