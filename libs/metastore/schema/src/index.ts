export * from './migration';
export * from './migration-runner';
export { migrations } from './migrations';
