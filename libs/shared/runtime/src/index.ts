export * from './base-config';
export * from './migrate';
export * from './run-app';
