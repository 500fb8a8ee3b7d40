import { errors, types } from 'cassandra-driver';
import { BlockContentionError } from '@ostore/storage/blocks';

const RETRYABLE_CODES = new Set<number>([
  types.responseErrorCodes.unavailableException,
  types.responseErrorCodes.overloaded,
  types.responseErrorCodes.isBootstrapping,
  types.responseErrorCodes.writeTimeout,
  types.responseErrorCodes.readTimeout,
  types.responseErrorCodes.readFailure,
  types.responseErrorCodes.writeFailure,
]);

/**
 * Whether trying again later may succeed: Cassandra unreachable, overloaded or timing out (an LWT
 * that timed out may or may not have applied — the re-read of the next attempt tells), and lost
 * block compare-and-set races. Anything else (a bug, an unreadable stored configuration) is not:
 * retrying would only block the partition behind a poison candidate.
 */
export function isRetryable(err: unknown): boolean {
  if (err instanceof errors.NoHostAvailableError || err instanceof errors.OperationTimedOutError) return true;
  if (err instanceof errors.BusyConnectionError) return true;
  if (err instanceof errors.ResponseError) return RETRYABLE_CODES.has(err.code);
  return err instanceof BlockContentionError;
}
