import { DynamicModule, Module, ModuleMetadata } from '@nestjs/common';
import { Clock } from '@ostore/shared/clock';
import { BlockStores } from '@ostore/storage/blocks';
import { S3Core } from '../s3-core';
import { CassandraLifecycleStore } from './cassandra-lifecycle.store';
import { LifecycleApplier, LifecycleApplierSettings } from './lifecycle-applier';

/**
 * The lifecycle applier of a core (the scheduler's; tools and tests build it the same way). Its
 * clock decides what is due, so tests move it; it should be the core's clock.
 */
export function createLifecycleApplier(
  core: S3Core,
  clock: Clock,
  settings: Partial<LifecycleApplierSettings> = {},
): LifecycleApplier {
  return new LifecycleApplier(new CassandraLifecycleStore(core), clock, settings);
}

/** The tier transitions move data to: a configured tier other than the default one. */
export function coldTierOf(stores: BlockStores | undefined): string | undefined {
  return stores?.tiers().find((t) => t !== stores.defaultTier);
}

export interface S3LifecycleModuleOptions {
  /** The module providing S3Core (the app's `S3CoreModule.forRoot(...)`) and, optionally, BlockStores. */
  imports: NonNullable<ModuleMetadata['imports']>;
  /**
   * Settings of the LifecycleApplier. Its transition tier defaults to the block stores' colder
   * tier (the one that is not the default for new bodies), when there is one.
   */
  settings?: Partial<LifecycleApplierSettings>;
}

/**
 * The LifecycleApplier over the app's S3 core, for the apps that apply lifecycle rules (the
 * scheduler); the gateway does not import it. Needs Clock (ClockModule, global).
 */
@Module({})
export class S3LifecycleModule {
  static forRoot(options: S3LifecycleModuleOptions): DynamicModule {
    return {
      module: S3LifecycleModule,
      imports: options.imports,
      providers: [
        {
          provide: LifecycleApplier,
          useFactory: (core: S3Core, clock: Clock, stores?: BlockStores) =>
            createLifecycleApplier(core, clock, { transitionTier: coldTierOf(stores), ...options.settings }),
          inject: [S3Core, Clock, { token: BlockStores, optional: true }],
        },
      ],
      exports: [LifecycleApplier],
    };
  }
}
