/** One entry of a bounded top list: a name and its weight (bytes, versions, entries, references). */
export interface Ranked {
  readonly name: string;
  readonly n: number;
}

/** How many entries every top list of a snapshot keeps. */
export const TOP_K = 10;

/**
 * Offers `entry` to a top list kept sorted by weight (heaviest first, ties by name) and at most `k`
 * long; returns the list (the same array). O(k) per offer: k is small (TOP_K).
 */
export function offerTop<R extends Ranked>(list: R[], entry: R, k = TOP_K): R[] {
  if (entry.n <= 0) return list;
  if (list.length >= k && !heavier(entry, list[list.length - 1])) return list;
  let i = list.length;
  while (i > 0 && heavier(entry, list[i - 1])) i--;
  list.splice(i, 0, entry);
  if (list.length > k) list.length = k;
  return list;
}

/** The top `k` of several top lists (of different hosts): every list is itself a top `k`. */
export function mergeTops<R extends Ranked>(lists: readonly (readonly R[])[], k = TOP_K): R[] {
  const out: R[] = [];
  for (const list of lists) for (const e of list) offerTop(out, e, k);
  return out;
}

function heavier(a: Ranked, b: Ranked): boolean {
  return a.n > b.n || (a.n === b.n && a.name < b.name);
}
