export * from './errors';
export * from './headers';
export * from './sigv4';
export * from './chunked';
export * from './checksums';
export * from './xml';
export * from './validation';
export * from './http-semantics';
