import { MIN_TOKEN } from './token-ring';

/**
 * How far a pass over one table got, in token order. Everything below `token` is done; with
 * `partition`, the partition at `token` is done up to and including the object `afterName`
 * (positions always fall between two objects, never inside one, so a resumed pass re-reads an
 * object it was in the middle of from its newest version: the current version is never missed).
 */
export interface ScanPosition {
  readonly token: bigint;
  readonly partition?: { readonly bucketId: string; readonly parent: string; readonly afterName: string };
}

/** The position of a pass that has read nothing yet. */
export const SCAN_START: ScanPosition = Object.freeze({ token: MIN_TOKEN });

/** `status` of a pass that read all of its node's primary ranges. */
export const COMPLETED = 'completed';

/** A pass's `status` column: the key it stopped at (JSON) or `completed` (seed 000's snapshot status). */
export type ScanStatus = ScanPosition | typeof COMPLETED;

export function encodeStatus(status: ScanStatus): string {
  if (status === COMPLETED) return COMPLETED;
  const p = status.partition;
  return JSON.stringify(
    p ? { t: status.token.toString(), b: p.bucketId, p: p.parent, n: p.afterName } : { t: status.token.toString() },
  );
}

/** Parses a stored status; an unreadable one restarts the pass from the start (it is only an optimisation). */
export function decodeStatus(text: string | undefined | null): ScanStatus {
  if (text === COMPLETED) return COMPLETED;
  if (!text) return SCAN_START;
  try {
    const o = JSON.parse(text) as { t?: unknown; b?: unknown; p?: unknown; n?: unknown };
    if (typeof o.t !== 'string' || !/^-?\d+$/.test(o.t)) return SCAN_START;
    const token = BigInt(o.t);
    if (typeof o.b === 'string' && typeof o.p === 'string' && typeof o.n === 'string')
      return { token, partition: { bucketId: o.b, parent: o.p, afterName: o.n } };
    return { token };
  } catch {
    return SCAN_START;
  }
}
