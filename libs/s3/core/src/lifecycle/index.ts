export * from './lifecycle-applier';
export * from './lifecycle-store';
export * from './version-group';
export { CassandraLifecycleStore } from './cassandra-lifecycle.store';
export { transitionRank } from './transition-rank';
