import { S3Error } from '../errors';

/** The S3Error that `fn` throws; fails the test when it throws nothing or something else. */
export function thrown(fn: () => unknown): S3Error {
  try {
    fn();
  } catch (e) {
    if (e instanceof S3Error) return e;
    throw e;
  }
  throw new Error('expected an S3Error');
}
