export * from './key-tables';
export * from './folder-cleanup.metrics';
export * from './filter-build.job';
export * from './folder-scan.job';
export * from './folder-cleanup.cycle';
export * from './local-ring';
