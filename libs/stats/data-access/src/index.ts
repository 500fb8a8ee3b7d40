export * from './usage-event.store';
export * from './usage-aggregate.store';
export * from './usage-totals.store';
export * from './usage-recorder';
export * from './stats.metrics';
export * from './usage-stores';
export * from './local/local-usage.state';
export * from './local/local-state.cleanup';
export type { LocalWindow, PartitionMark } from './local/local-usage.entity';
