export * from './empty-folder.applier';
