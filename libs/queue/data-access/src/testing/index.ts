export { InMemoryQueueTables } from '../in-memory-queue-tables';
export * from './in-memory-queue';
export * from './queue-contract.suite';
export * from './through-transport';
export { UsageTopicReader, UsageRecordOnTopic } from './usage-topic.reader';
export * from './usage-publisher.fakes';
