export * from './snapshot.store';
