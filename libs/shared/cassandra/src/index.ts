export * from './cassandra.options';
export * from './cassandra.client';
export * from './cassandra.module';
export * from './write-coalescing';
export * from './text-order';
