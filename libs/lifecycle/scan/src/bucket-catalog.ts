import type { BucketsRepository } from '@ostore/metastore/data-access';
import { BucketVersioning, decodeStoredLifecycle, LifecycleConfiguration, LifecycleRule } from '@ostore/lifecycle/rules';

/** What the scan needs of a bucket. */
export interface ScanBucket {
  readonly bucketId: string;
  readonly name: string;
  readonly versioning: BucketVersioning;
  /** The parsed lifecycle configuration; absent when the bucket has none (or an unreadable one). */
  readonly lifecycle?: LifecycleConfiguration;
}

/** A bucket row before its configuration is parsed. */
export interface BucketRecord {
  readonly bucketId: string;
  readonly name: string;
  readonly versioning: string;
  /** `buckets.lifecycle`, as the gateway stores it (encodeStoredLifecycle). */
  readonly lifecycle?: string;
}

/** All buckets of the metastore (a small table: one row per bucket). */
export abstract class BucketSource {
  abstract all(): Promise<BucketRecord[]>;
}

/** `buckets` through the metastore repository (the app's session), read once per pass and on an unknown id. */
export class MetastoreBucketSource extends BucketSource {
  constructor(private readonly buckets: Pick<BucketsRepository, 'all'>) {
    super();
  }

  async all(): Promise<BucketRecord[]> {
    return (await this.buckets.all()).map((b) => ({
      bucketId: b.bucketId,
      name: b.name,
      versioning: b.versioning,
      lifecycle: b.lifecycle,
    }));
  }
}

/** Enabled rules of a configuration whose prefix a key has. */
export function rulesFor(config: LifecycleConfiguration, key: string): LifecycleRule[] {
  return config.rules.filter((r) => r.status === 'Enabled' && key.startsWith(r.filter.prefix ?? ''));
}

/**
 * The scan's view of bucket settings, keyed by bucket id: loaded at the start of each pass, so a
 * configuration changed during a pass is seen by the next one (the scheduler re-checks the rules
 * anyway). An id missing from the view (a bucket created during the pass, or rows left by a
 * deleted bucket) triggers at most one reload per `reloadMinMs` of `nowMs` (monotonic milliseconds:
 * the apps pass their clock's `monotonicMs`); ids still unknown are skipped.
 */
export class BucketCatalog {
  private byId = new Map<string, ScanBucket>();
  private loadedAt = Number.NEGATIVE_INFINITY;
  /** Names of buckets whose stored configuration could not be read (reported once each). */
  readonly unreadable = new Set<string>();

  constructor(
    private readonly source: BucketSource,
    private readonly reloadMinMs = 30_000,
    private readonly nowMs: () => number = () => performance.now(),
  ) {}

  async load(): Promise<void> {
    const records = await this.source.all();
    this.byId = new Map(records.map((r) => [r.bucketId, this.parse(r)]));
    this.loadedAt = this.nowMs();
  }

  async get(bucketId: string): Promise<ScanBucket | undefined> {
    const known = this.byId.get(bucketId);
    if (known || this.nowMs() - this.loadedAt < this.reloadMinMs) return known;
    await this.load();
    return this.byId.get(bucketId);
  }

  /** The cached entry only (no reload). */
  peek(bucketId: string): ScanBucket | undefined {
    return this.byId.get(bucketId);
  }

  private parse(r: BucketRecord): ScanBucket {
    const versioning: BucketVersioning =
      r.versioning === 'Enabled' || r.versioning === 'Suspended' ? r.versioning : 'Unversioned';
    let lifecycle: LifecycleConfiguration | undefined;
    if (r.lifecycle) {
      try {
        lifecycle = decodeStoredLifecycle(r.lifecycle, `bucket ${r.name}`);
      } catch {
        this.unreadable.add(r.name);
      }
    }
    return { bucketId: r.bucketId, name: r.name, versioning, lifecycle };
  }
}
