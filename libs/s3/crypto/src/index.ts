export * from './segments';
export * from './keys';
export * from './sse-headers';
export * from './bucket-encryption';
export * from './parts';
