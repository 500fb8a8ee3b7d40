/**
 * Runs tasks one after another per key (a queue partition), in call order, so that two publish
 * calls to one partition from this process can never overtake each other — not even when the
 * first is retried. Different keys run concurrently.
 */
export class Lanes {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}

/** Throws unless `partition` is one of the topic's `count` partitions. */
export function assertPartition(queue: string, partition: number, count: number): void {
  if (!Number.isInteger(partition) || partition < 0 || partition >= count)
    throw new Error(`queue ${queue} has partitions 0..${count - 1} (got ${partition})`);
}
