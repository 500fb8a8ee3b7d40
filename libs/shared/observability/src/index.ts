export * from './logger';
export * from './metrics';
export * from './health';
export * from './readiness.metrics';
export * from './observability.module';
