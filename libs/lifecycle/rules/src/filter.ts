import { LifecycleFilter } from './configuration';

/** Object tags by key. */
export type ObjectTags = Readonly<Record<string, string>>;

/** What a filter reads of an object version. A delete marker has no tags and size 0. */
export interface FilterSubject {
  readonly key: string;
  readonly tags?: ObjectTags;
  readonly size: number;
}

/**
 * Whether an object version meets every predicate of a filter: the key starts with the prefix,
 * each tag is present with exactly that value (other tags do not matter), the size is strictly
 * above `objectSizeGreaterThan` and strictly below `objectSizeLessThan`.
 */
export function matchesFilter(filter: LifecycleFilter, subject: FilterSubject): boolean {
  if (filter.prefix !== undefined && !subject.key.startsWith(filter.prefix)) return false;
  if (filter.objectSizeGreaterThan !== undefined && !(subject.size > filter.objectSizeGreaterThan))
    return false;
  if (filter.objectSizeLessThan !== undefined && !(subject.size < filter.objectSizeLessThan)) return false;
  const tags = subject.tags ?? {};
  return filter.tags.every(
    (t) => Object.prototype.hasOwnProperty.call(tags, t.key) && tags[t.key] === t.value,
  );
}

/** Whether a filter names a size, which overrides the default 128 KiB transition minimum. */
export function hasSizePredicate(filter: LifecycleFilter): boolean {
  return filter.objectSizeGreaterThan !== undefined || filter.objectSizeLessThan !== undefined;
}
