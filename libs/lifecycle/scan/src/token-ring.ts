/**
 * Token arithmetic of the local scan. Only Murmur3Partitioner (Cassandra's default) is supported:
 * its tokens are signed 64-bit integers, handled here as `bigint`.
 *
 * Murmur3 never gives a partition the minimum token (−2^63: `normalize()` maps it to +2^63−1), so
 * the whole ring is the non-wrapping span (MIN_TOKEN, MAX_TOKEN] and a CQL range
 * `token(k) > start AND token(k) <= end` over spans that cover it reads every partition once.
 */
export const MIN_TOKEN = -(2n ** 63n);
export const MAX_TOKEN = 2n ** 63n - 1n;

/** A non-wrapping span of the ring, start exclusive, end inclusive (`start < end`): what one CQL range query reads. */
export interface TokenSpan {
  readonly start: bigint;
  readonly end: bigint;
}

/** One range of the ring as the driver reports it: (start, end], possibly wrapping; replicas in ring order. */
export interface RingRange {
  readonly start: bigint;
  readonly end: bigint;
  /** The replicas of the range for the scanned keyspace, primary first (see primaryRanges). */
  readonly replicas: readonly string[];
}

/**
 * The spans of the ring whose PRIMARY replica is `node`, in token order, adjacent spans merged.
 *
 * The primary replica of a range (start, end] is the first replica in ring order: the node owning
 * `end` for SimpleStrategy, and for NetworkTopologyStrategy the first node met walking clockwise
 * from `end` that belongs to a replicated datacenter — which is the order in which the driver's
 * `getReplicas()` lists them. Every range has exactly one primary across the whole cluster, so
 * the scanners beside all nodes (of every datacenter) together read each partition exactly once,
 * and each of them reads only data its own node holds.
 */
export function primaryRanges(ring: readonly RingRange[], node: string): TokenSpan[] {
  const spans: TokenSpan[] = [];
  for (const r of ring) {
    if (r.replicas[0] !== node) continue;
    spans.push(...unwrap(r.start, r.end));
  }
  return mergeSpans(spans);
}

/**
 * A ring range as non-wrapping spans. A range whose start equals its end is the whole ring (a ring
 * of one token); a range with start > end wraps past MAX_TOKEN.
 */
export function unwrap(start: bigint, end: bigint): TokenSpan[] {
  if (start === end) return [{ start: MIN_TOKEN, end: MAX_TOKEN }];
  if (start < end) return [{ start, end }];
  const out: TokenSpan[] = [];
  if (start < MAX_TOKEN) out.push({ start, end: MAX_TOKEN });
  if (end > MIN_TOKEN) out.push({ start: MIN_TOKEN, end });
  return out;
}

/** Sorts spans by token and merges those that touch or overlap. */
export function mergeSpans(spans: readonly TokenSpan[]): TokenSpan[] {
  const sorted = [...spans].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const out: TokenSpan[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && s.start <= last.end) {
      if (s.end > last.end) out[out.length - 1] = { start: last.start, end: s.end };
    } else {
      out.push(s);
    }
  }
  return out;
}

/** The spans still to read after `token` (everything at or below it is done), in order. */
export function spansAfter(spans: readonly TokenSpan[], token: bigint): TokenSpan[] {
  const out: TokenSpan[] = [];
  for (const s of spans) {
    if (s.end <= token) continue;
    out.push(token > s.start ? { start: token, end: s.end } : s);
  }
  return out;
}

/** Whether `token` lies in one of the spans. */
export function spansContain(spans: readonly TokenSpan[], token: bigint): boolean {
  return spans.some((s) => token > s.start && token <= s.end);
}

/** Fraction (0..1) of the spans' tokens at or below `token`: the scan's progress. */
export function progressAt(spans: readonly TokenSpan[], token: bigint): number {
  let total = 0n;
  let done = 0n;
  for (const s of spans) {
    const width = s.end - s.start;
    total += width;
    if (token >= s.end) done += width;
    else if (token > s.start) done += token - s.start;
  }
  return total === 0n ? 1 : Number((done * 1_000_000n) / total) / 1_000_000;
}
