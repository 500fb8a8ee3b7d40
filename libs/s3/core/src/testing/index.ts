/**
 * `@ostore/s3/core/testing`: the S3 core's test factory (a core over a migrated keyspace, as many
 * nodes as a spec needs), data builders, an in-memory LifecycleStore for unit tests of lifecycle
 * decisions, and an in-memory tree source with a brute-force listing model.
 */
export * from './builders';
export * from './core-fixture';
export * from './tree-model';
export { InMemoryLifecycleStore } from './in-memory-lifecycle.store';
export type { NewVersion } from './in-memory-lifecycle.store';
export { UnconnectedAppInfra } from './nest-infra';
export { InMemoryQuotaLedger } from './in-memory-quota-ledger';
