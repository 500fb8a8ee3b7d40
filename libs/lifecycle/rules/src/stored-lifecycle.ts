import {
  DEFAULT_TRANSITION_MINIMUM_OBJECT_SIZE,
  FilterForm,
  LifecycleConfiguration,
  LifecycleExpiration,
  LifecycleFilter,
  LifecycleRule,
  LifecycleTransition,
  NoncurrentVersionExpiration,
  NoncurrentVersionTransition,
  RuleStatus,
  TRANSITION_STORAGE_CLASSES,
  TransitionDefaultMinimumObjectSize,
  TransitionStorageClass,
} from './configuration';

/**
 * The stored form of a bucket's lifecycle configuration (the `buckets.lifecycle` text cell): the
 * one module that writes it (the gateway's PutBucketLifecycleConfiguration) and reads it (the
 * gateway's Get, the scanner's bucket catalog, the scheduler's applier) go through.
 *
 * Version 1 is the parsed LifecycleConfiguration as JSON with a `v` field:
 * `{"v":1,"rules":[...],"transitionDefaultMinimumObjectSize":"..."}`. Rows written before the
 * field existed are `JSON.stringify(config)` with no `v` and decode as version 1; readers of those
 * releases ignore the field, so old and new processes can share a metastore. A version this code
 * does not know (written by a newer release) is refused, never half read.
 */
export const STORED_LIFECYCLE_VERSION = 1;

/** A stored lifecycle configuration that cannot be read: not JSON, an unknown version or a malformed field. */
export class StoredLifecycleError extends Error {
  constructor(
    message: string,
    /** Where in the document the fault is (`rules[2].transitions[0].storageClass`), empty for the whole. */
    readonly path: string,
  ) {
    super(message);
    this.name = 'StoredLifecycleError';
  }
}

/** The text to store for a configuration the parser accepted. */
export function encodeStoredLifecycle(config: LifecycleConfiguration): string {
  return JSON.stringify({
    v: STORED_LIFECYCLE_VERSION,
    rules: config.rules,
    transitionDefaultMinimumObjectSize: config.transitionDefaultMinimumObjectSize,
  });
}

/**
 * The configuration a stored text stands for, checked field by field (unknown fields are
 * dropped); throws StoredLifecycleError naming `context` (e.g. the bucket) and the faulty field.
 */
export function decodeStoredLifecycle(
  text: string,
  context = 'stored lifecycle configuration',
): LifecycleConfiguration {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new StoredLifecycleError(`${context}: not JSON (${(e as Error).message})`, '');
  }
  try {
    return configurationOf(doc);
  } catch (e) {
    if (!(e instanceof Fault)) throw e;
    const at = e.path ? ` at ${e.path}` : '';
    throw new StoredLifecycleError(`${context}: not readable${at}: ${e.message}`, e.path);
  }
}

class Fault extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

type Doc = Record<string, unknown>;

function configurationOf(doc: unknown): LifecycleConfiguration {
  const o = object(doc, '');
  const v = o['v'] ?? STORED_LIFECYCLE_VERSION;
  if (v !== STORED_LIFECYCLE_VERSION) throw new Fault('v', `unknown format version ${JSON.stringify(v)}`);
  if (!Array.isArray(o['rules'])) throw new Fault('rules', 'expected an array');
  return {
    rules: o['rules'].map((r, i) => ruleOf(r, `rules[${i}]`)),
    transitionDefaultMinimumObjectSize:
      optional(o, 'transitionDefaultMinimumObjectSize', '', (x, p) =>
        oneOf<TransitionDefaultMinimumObjectSize>(x, p, MINIMUM_SIZES),
      ) ?? DEFAULT_TRANSITION_MINIMUM_OBJECT_SIZE,
  };
}

const STATUSES: readonly RuleStatus[] = ['Enabled', 'Disabled'];
const FILTER_FORMS: readonly FilterForm[] = ['legacy-prefix', 'filter', 'and'];
const MINIMUM_SIZES: readonly TransitionDefaultMinimumObjectSize[] = [
  'all_storage_classes_128K',
  'varies_by_storage_class',
];

function ruleOf(doc: unknown, path: string): LifecycleRule {
  const o = object(doc, path);
  return withDefined<LifecycleRule>({
    id: string(o['id'], `${path}.id`),
    status: oneOf(o['status'], `${path}.status`, STATUSES),
    filterForm: oneOf(o['filterForm'], `${path}.filterForm`, FILTER_FORMS),
    filter: filterOf(o['filter'], `${path}.filter`),
    expiration: optional(o, 'expiration', path, expirationOf),
    transitions: list(o, 'transitions', path, transitionOf),
    noncurrentVersionTransitions: list(o, 'noncurrentVersionTransitions', path, noncurrentTransitionOf),
    noncurrentVersionExpiration: optional(o, 'noncurrentVersionExpiration', path, noncurrentExpirationOf),
    abortIncompleteMultipartUpload: optional(o, 'abortIncompleteMultipartUpload', path, (x, p) => ({
      daysAfterInitiation: count(object(x, p)['daysAfterInitiation'], `${p}.daysAfterInitiation`),
    })),
  });
}

function filterOf(doc: unknown, path: string): LifecycleFilter {
  const o = object(doc, path);
  return withDefined<LifecycleFilter>({
    prefix: optional(o, 'prefix', path, string),
    tags: list(o, 'tags', path, (x, p) => {
      const t = object(x, p);
      return { key: string(t['key'], `${p}.key`), value: string(t['value'], `${p}.value`) };
    }),
    objectSizeGreaterThan: optional(o, 'objectSizeGreaterThan', path, count),
    objectSizeLessThan: optional(o, 'objectSizeLessThan', path, count),
  });
}

function expirationOf(doc: unknown, path: string): LifecycleExpiration {
  const o = object(doc, path);
  return withDefined<LifecycleExpiration>({
    ...daysOrDate(o, path),
    expiredObjectDeleteMarker: optional(o, 'expiredObjectDeleteMarker', path, boolean),
  });
}

/** When an Expiration or a Transition acts: `days` or `date` (which one is given is the parser's to check). */
function daysOrDate(o: Doc, path: string): { days: number | undefined; date: string | undefined } {
  return { days: optional(o, 'days', path, count), date: optional(o, 'date', path, date) };
}

function transitionOf(doc: unknown, path: string): LifecycleTransition {
  const o = object(doc, path);
  return withDefined<LifecycleTransition>({
    ...daysOrDate(o, path),
    storageClass: storageClass(o['storageClass'], `${path}.storageClass`),
  });
}

function noncurrentTransitionOf(doc: unknown, path: string): NoncurrentVersionTransition {
  const o = object(doc, path);
  return withDefined<NoncurrentVersionTransition>({
    noncurrentDays: count(o['noncurrentDays'], `${path}.noncurrentDays`),
    newerNoncurrentVersions: optional(o, 'newerNoncurrentVersions', path, count),
    storageClass: storageClass(o['storageClass'], `${path}.storageClass`),
  });
}

function noncurrentExpirationOf(doc: unknown, path: string): NoncurrentVersionExpiration {
  const o = object(doc, path);
  return withDefined<NoncurrentVersionExpiration>({
    noncurrentDays: count(o['noncurrentDays'], `${path}.noncurrentDays`),
    newerNoncurrentVersions: optional(o, 'newerNoncurrentVersions', path, count),
  });
}

/** The object without its undefined fields: absent stays absent, as JSON.parse of the old rows gives it. */
function withDefined<T extends object>(o: { [K in keyof T]: T[K] | undefined }): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function optional<T>(
  o: Doc,
  key: string,
  path: string,
  read: (x: unknown, path: string) => T,
): T | undefined {
  const x = o[key];
  return x === undefined || x === null ? undefined : read(x, join(path, key));
}

/** An array field; absent reads as empty (every release so far wrote them, but an empty one costs nothing). */
function list<T>(o: Doc, key: string, path: string, read: (x: unknown, path: string) => T): T[] {
  const x = o[key];
  if (x === undefined || x === null) return [];
  if (!Array.isArray(x)) throw new Fault(join(path, key), 'expected an array');
  return x.map((item, i) => read(item, `${join(path, key)}[${i}]`));
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function object(x: unknown, path: string): Doc {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) throw new Fault(path, 'expected an object');
  return x as Doc;
}

function string(x: unknown, path: string): string {
  if (typeof x !== 'string') throw new Fault(path, 'expected a string');
  return x;
}

function boolean(x: unknown, path: string): boolean {
  if (typeof x !== 'boolean') throw new Fault(path, 'expected a boolean');
  return x;
}

/** A non-negative integer (days, sizes, counts). */
function count(x: unknown, path: string): number {
  if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < 0)
    throw new Fault(path, 'expected a non-negative integer');
  return x;
}

/** An ISO 8601 instant, as the parser writes dates. */
function date(x: unknown, path: string): string {
  const s = string(x, path);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(s) || Number.isNaN(Date.parse(s)))
    throw new Fault(path, 'expected an ISO 8601 date');
  return s;
}

function storageClass(x: unknown, path: string): TransitionStorageClass {
  return oneOf(x, path, TRANSITION_STORAGE_CLASSES);
}

function oneOf<T extends string>(x: unknown, path: string, allowed: readonly T[]): T {
  if (typeof x !== 'string' || !(allowed as readonly string[]).includes(x)) {
    throw new Fault(path, `expected one of ${allowed.join(', ')}`);
  }
  return x as T;
}
