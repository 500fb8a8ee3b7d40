import { isMetastoreUnavailable } from '@ostore/metastore/data-access';
import { BlockContentionError } from '@ostore/storage/blocks';

/**
 * Whether trying again later may succeed: Cassandra unreachable, overloaded or timing out (an LWT
 * that timed out may or may not have applied — the re-read of the next attempt tells), and lost
 * block compare-and-set races. Anything else (a bug, an unreadable stored configuration) is not:
 * retrying would only block the partition behind a poison candidate.
 */
export function isRetryable(err: unknown): boolean {
  return isMetastoreUnavailable(err) || err instanceof BlockContentionError;
}
