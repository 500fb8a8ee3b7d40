export * from './env';
export { z } from 'zod';
