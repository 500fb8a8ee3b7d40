export * from './top-k';
export * from './snapshot';
export * from './accumulator';
export * from './combine';
export * from './codec';
export * from './usage';
