export * from './block-store';
export * from './block-manager';
