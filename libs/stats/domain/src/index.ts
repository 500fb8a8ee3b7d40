export * from './layout';
export * from './windows';
export * from './retention';
export * from './usage-event';
export * from './merge';
export * from './schedule';
