/**
 * `@ostore/s3/core/lifecycle`: lifecycle application over the S3 core (the scheduler's). It
 * shares the core's version-store invariants, hence lives beside it rather than in
 * libs/lifecycle; apps that only serve S3 (the gateway) never load it.
 */
export * from './lifecycle-applier';
export * from './lifecycle-store';
export * from './version-group';
export * from './s3-lifecycle.module';
export { CassandraLifecycleStore } from './cassandra-lifecycle.store';
export { transitionRank } from './transition-rank';
