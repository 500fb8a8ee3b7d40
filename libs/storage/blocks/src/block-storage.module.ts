import {
  DynamicModule,
  Inject,
  Injectable,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  Provider,
} from '@nestjs/common';
import { CassandraClient } from '@ostore/shared/cassandra';
import { Clock, SystemClock } from '@ostore/shared/clock';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { BlockGarbageCollector } from './block-garbage-collector';
import {
  BlockLifecycleOptions,
  BlockLifecycleSettings,
  resolveBlockLifecycle,
} from './block-lifecycle.settings';
import { BLOCK_MANAGER } from './block-manager';
import { BlockReclaimer } from './block-reclaimer';
import { BlockStore, BlockStores } from './block-store';
import { CassandraBlockManager } from './cassandra-block-manager';
import { BlockStateRepository } from './state/block-state.repository';
import { CassandraBlockStore } from './stores/cassandra-block-store';
import { CompressedBlockStore, CompressionAlgorithm } from './stores/compressed-block-store';
import { DirectIoMode, LocalFsBlockStore } from './stores/local-fs-block-store';

/** Configuration of the block storage of one app (validated by the app's config, passed in). */
export interface BlockStorageOptions extends BlockLifecycleOptions {
  /** Where hot blocks live: files under `fsRoot`, or chunks in Cassandra (no shared disk needed). */
  store: 'fs' | 'cassandra';
  /** Root directory of the 'fs' store (required for it). */
  fsRoot?: string;
  /** The 'fs' store's use of O_DIRECT (see LocalFsBlockStoreOptions.directIo; default 'writes'). */
  fsDirectIo?: DirectIoMode;
  /** Tier name of the hot store (default 'standard'). */
  tier?: string;
  /** Chunk size of the 'cassandra' store (default 512 KiB). */
  chunkSize?: number;
  /**
   * The compressed cold tier for lifecycle Transition (omitted: none). Its blocks go to their own
   * directory (`fsRoot`) with the 'fs' store, or to the same chunk table with the 'cassandra' store.
   */
  cold?: { tier?: string; fsRoot?: string; algorithm?: CompressionAlgorithm; level?: number };
  /** Run the GC every this many ms (with ±10% jitter) from bootstrap to shutdown; 0 or unset: never. */
  gcIntervalMs?: number;
}

/** Injection token of the BlockStorageOptions given to `forRoot`. */
export const BLOCK_STORAGE_OPTIONS = Symbol('BLOCK_STORAGE_OPTIONS');
const BLOCK_LIFECYCLE_SETTINGS = Symbol('BLOCK_LIFECYCLE_SETTINGS');

/**
 * Builds the stores of the options: the hot tier first (the default for new bodies), then the cold
 * one. An 'fs' store whose filesystem refuses O_DIRECT says so once in `logger`'s log and from then
 * on in `ostore_block_fs_direct_io_refused{tier}` of `metrics` (1; 0 while it has not).
 */
export function createBlockStores(
  options: BlockStorageOptions,
  cassandra: CassandraClient,
  logger: JsonLogger,
  metrics: MetricsRegistry,
): BlockStores {
  const refused = new Map<string, boolean>();
  metrics.gauge(
    'ostore_block_fs_direct_io_refused',
    "Whether an fs block store's filesystem refused O_DIRECT (1: its block I/O has gone through the page cache since), by tier",
    ['tier'],
    {
      aggregator: 'max',
      collect() {
        this.reset();
        for (const [tier, yes] of refused) this.set({ tier }, yes ? 1 : 0);
      },
    },
  );
  const onDirectIoRefused = (root: string, tier: string) => {
    refused.set(tier, false);
    return (reason: string) => {
      refused.set(tier, true);
      logger
        .forContext(LocalFsBlockStore.name)
        .warn('the filesystem refused O_DIRECT: block I/O goes through the page cache from now on', { root, tier, reason });
    };
  };
  const tier = options.tier ?? 'standard';
  const stores: BlockStore[] = [];
  if (options.store === 'fs') {
    if (!options.fsRoot) throw new Error('block storage: store "fs" needs fsRoot');
    stores.push(
      new LocalFsBlockStore({
        tier,
        root: options.fsRoot,
        directIo: options.fsDirectIo,
        onDirectIoRefused: onDirectIoRefused(options.fsRoot, tier),
      }),
    );
  } else {
    stores.push(new CassandraBlockStore(cassandra, { tier, chunkSize: options.chunkSize }));
  }
  if (options.cold) {
    const coldTier = options.cold.tier ?? 'cold';
    let inner: BlockStore;
    if (options.store === 'fs') {
      if (!options.cold.fsRoot)
        throw new Error('block storage: the cold tier of an "fs" store needs cold.fsRoot');
      inner = new LocalFsBlockStore({ tier: `${coldTier}-raw`, root: options.cold.fsRoot });
    } else {
      inner = new CassandraBlockStore(cassandra, { tier: `${coldTier}-raw`, chunkSize: options.chunkSize });
    }
    stores.push(
      new CompressedBlockStore(inner, {
        tier: coldTier,
        algorithm: options.cold.algorithm,
        level: options.cold.level,
      }),
    );
  }
  return new BlockStores(stores, tier);
}

/** Runs the GC periodically when `gcIntervalMs` is set; waits for a pass in progress on shutdown. */
@Injectable()
export class BlockGcScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private current?: Promise<unknown>;
  private stopped = false;

  constructor(
    @Inject(BlockGarbageCollector) private readonly gc: BlockGarbageCollector,
    @Inject(BLOCK_STORAGE_OPTIONS) private readonly options: BlockStorageOptions,
    @Inject(JsonLogger) private readonly logger: JsonLogger,
  ) {}

  onApplicationBootstrap(): void {
    if (this.options.gcIntervalMs) this.schedule(this.options.gcIntervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.current;
  }

  private schedule(intervalMs: number): void {
    if (this.stopped) return;
    const delay = intervalMs * (0.9 + Math.random() * 0.2);
    this.timer = setTimeout(() => {
      this.current = this.gc
        .runOnce()
        .catch((err: unknown) =>
          this.logger.forContext(BlockGcScheduler.name).error('block gc pass failed', { err }),
        )
        .finally(() => this.schedule(intervalMs));
    }, delay);
    this.timer.unref();
  }
}

/**
 * Block storage for an app (a global module): `BLOCK_MANAGER` (a CassandraBlockManager), the `BlockStores`, the
 * `BlockGarbageCollector` (run it with `runOnce`, or set `gcIntervalMs`). Uses the app's global
 * CassandraClient (CassandraModule), JsonLogger and MetricsRegistry (ObservabilityModule), and the
 * global `Clock` if ClockModule is imported (the system clock otherwise).
 */
@Module({})
export class BlockStorageModule {
  static forRoot(options: BlockStorageOptions): DynamicModule {
    const providers: Provider[] = [
      { provide: BLOCK_STORAGE_OPTIONS, useValue: options },
      { provide: BLOCK_LIFECYCLE_SETTINGS, useFactory: () => resolveBlockLifecycle(options) },
      {
        provide: BlockStores,
        useFactory: (c: CassandraClient, l: JsonLogger, m: MetricsRegistry) => createBlockStores(options, c, l, m),
        inject: [CassandraClient, JsonLogger, MetricsRegistry],
      },
      {
        provide: BlockStateRepository,
        useFactory: (c: CassandraClient) => new BlockStateRepository(c),
        inject: [CassandraClient],
      },
      {
        provide: BlockReclaimer,
        useFactory: (
          repo: BlockStateRepository,
          stores: BlockStores,
          s: BlockLifecycleSettings,
          m: MetricsRegistry,
          l: JsonLogger,
        ) => new BlockReclaimer(repo, stores, s, m, l),
        inject: [BlockStateRepository, BlockStores, BLOCK_LIFECYCLE_SETTINGS, MetricsRegistry, JsonLogger],
      },
      {
        provide: CassandraBlockManager,
        useFactory: (
          repo: BlockStateRepository,
          stores: BlockStores,
          reclaimer: BlockReclaimer,
          s: BlockLifecycleSettings,
          clock: Clock | undefined,
          m: MetricsRegistry,
          l: JsonLogger,
        ) => new CassandraBlockManager(repo, stores, reclaimer, s, clock ?? new SystemClock(), m, l),
        inject: [
          BlockStateRepository,
          BlockStores,
          BlockReclaimer,
          BLOCK_LIFECYCLE_SETTINGS,
          { token: Clock, optional: true },
          MetricsRegistry,
          JsonLogger,
        ],
      },
      { provide: BLOCK_MANAGER, useExisting: CassandraBlockManager },
      {
        provide: BlockGarbageCollector,
        useFactory: (
          repo: BlockStateRepository,
          reclaimer: BlockReclaimer,
          s: BlockLifecycleSettings,
          clock: Clock | undefined,
          m: MetricsRegistry,
          l: JsonLogger,
        ) => new BlockGarbageCollector(repo, reclaimer, s, clock ?? new SystemClock(), m, l),
        inject: [
          BlockStateRepository,
          BlockReclaimer,
          BLOCK_LIFECYCLE_SETTINGS,
          { token: Clock, optional: true },
          MetricsRegistry,
          JsonLogger,
        ],
      },
      BlockGcScheduler,
    ];
    return {
      module: BlockStorageModule,
      // Global, like CassandraModule: one set of stores, one manager and one GC per app, injectable
      // from any feature module (S3 core, lifecycle) without importing forRoot a second time.
      global: true,
      providers,
      exports: [
        BLOCK_MANAGER,
        CassandraBlockManager,
        BlockStores,
        BlockGarbageCollector,
        BLOCK_STORAGE_OPTIONS,
      ],
    };
  }
}
