import type { Clock } from '@ostore/shared/clock';

export interface AccessKeyCacheOptions {
  /** How long a key found in the metastore is reused (0: never cached). */
  ttlMs: number;
  /** How long "no such key" is remembered, so a stream of requests with an unknown key stops costing a read each (0: never). */
  negativeTtlMs: number;
  /** Most entries kept; past it the least recently used entry goes (never the whole cache). */
  maxEntries: number;
}

interface Entry<V> {
  value: V | undefined;
  until: number;
}

/**
 * Access keys by id for the authenticator: a bounded LRU (a Map kept in use order) with a TTL for
 * found keys and a shorter one for unknown ids, and one metastore read shared by concurrent misses
 * of the same id. A key disabled or created elsewhere is seen after at most the matching TTL.
 */
export class AccessKeyCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly loading = new Map<string, Promise<V | undefined>>();

  constructor(
    private readonly clock: Clock,
    private readonly options: AccessKeyCacheOptions,
  ) {}

  /** The cached value of `id`, else what `load` reads (shared by concurrent callers). */
  async get(id: string, load: (id: string) => Promise<V | undefined>): Promise<V | undefined> {
    const hit = this.entries.get(id);
    if (hit) {
      if (hit.until > this.clock.nowMs()) {
        this.entries.delete(id); // re-inserted last: the most recently used
        this.entries.set(id, hit);
        return hit.value;
      }
      this.entries.delete(id);
    }
    let pending = this.loading.get(id);
    if (!pending) {
      pending = this.read(id, load).finally(() => this.loading.delete(id));
      this.loading.set(id, pending);
    }
    return pending;
  }

  /** Entries held now (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }

  private async read(id: string, load: (id: string) => Promise<V | undefined>): Promise<V | undefined> {
    const started = this.clock.nowMs();
    const value = await load(id);
    const ttl = value === undefined ? this.options.negativeTtlMs : this.options.ttlMs;
    if (ttl > 0 && this.options.maxEntries > 0) {
      while (this.entries.size >= this.options.maxEntries) {
        const oldest = this.entries.keys().next().value as string;
        this.entries.delete(oldest);
      }
      // counted from before the read, so an entry never outlives its TTL measured from the read
      this.entries.set(id, { value, until: started + ttl });
    }
    return value;
  }
}
