import { errors, types } from 'cassandra-driver';

/** Coordinator answers that say the cluster could not serve the request now, not that it is wrong. */
const UNAVAILABLE_CODES = new Set<number>([
  types.responseErrorCodes.unavailableException,
  types.responseErrorCodes.overloaded,
  types.responseErrorCodes.isBootstrapping,
  types.responseErrorCodes.writeTimeout,
  types.responseErrorCodes.readTimeout,
  types.responseErrorCodes.readFailure,
  types.responseErrorCodes.writeFailure,
]);

/**
 * Whether `err` (or an error in its cause chain) says the metastore is unreachable, overloaded or
 * timing out — a condition that passes, so a retry later may succeed. A timed-out write may or may
 * not have been applied: callers retry idempotent work or re-read before acting again.
 */
export function isMetastoreUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = (e as Error & { cause?: unknown }).cause, depth++) {
    if (e instanceof errors.NoHostAvailableError || e instanceof errors.OperationTimedOutError) return true;
    if (e instanceof errors.BusyConnectionError) return true;
    if (e instanceof errors.ResponseError && UNAVAILABLE_CODES.has(e.code)) return true;
  }
  return false;
}
