export * from './clock';
export * from './clock.module';
export * from './sleep';
