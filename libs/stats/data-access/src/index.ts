export * from './usage-event.store';
export * from './usage-aggregate.store';
export * from './usage-totals.store';
export * from './usage-recorder';
export * from './stats.metrics';
export * from './usage-stores';
