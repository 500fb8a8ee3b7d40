export * from './statement';
export * from './buckets.repository';
export * from './users.repository';
export * from './versions.repository';
export * from './objects.repository';
export * from './folders.repository';
export * from './uploads.repository';
export * from './metastore';
