export * from './stack-env';
export * from './app-process';
export * from './gateway-harness';
export * from './metrics';
export * from './cassandra-ring';
export * from './free-port';
