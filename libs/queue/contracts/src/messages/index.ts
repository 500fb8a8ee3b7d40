export * from './message-contract';
export * from './version-candidate';
export * from './upload-candidate';
export * from './folder-candidate';
export * from './usage-delta';
