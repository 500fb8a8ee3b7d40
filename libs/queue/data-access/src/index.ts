export * from './kafka.options';
export * from './kafka.client';
export * from './kafka.module';
