export * from './parent-prefixes';
export * from './filter-shape';
export * from './directory-filter';
export * from './generation';
export * from './parent-budget';
