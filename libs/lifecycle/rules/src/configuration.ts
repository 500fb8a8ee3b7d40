/**
 * The typed form of a bucket's lifecycle configuration (PutBucketLifecycleConfiguration).
 * Plain JSON-safe data: dates are ISO 8601 strings, so a configuration survives
 * `JSON.stringify`/`JSON.parse` unchanged and can be stored as text in the bucket settings.
 */

export type RuleStatus = 'Enabled' | 'Disabled';

/** The storage classes a Transition or NoncurrentVersionTransition may name, warm to cold (AWS's waterfall). */
export const TRANSITION_STORAGE_CLASSES = [
  'STANDARD_IA',
  'INTELLIGENT_TIERING',
  'ONEZONE_IA',
  'GLACIER_IR',
  'GLACIER',
  'DEEP_ARCHIVE',
] as const;

export type TransitionStorageClass = (typeof TRANSITION_STORAGE_CLASSES)[number];

/**
 * `x-amz-transition-default-minimum-object-size`. With `all_storage_classes_128K` (AWS's default
 * since September 2024) no object under 128 KiB transitions; with `varies_by_storage_class` such
 * objects still go to GLACIER and DEEP_ARCHIVE. A rule with its own size predicate overrides both.
 */
export type TransitionDefaultMinimumObjectSize = 'all_storage_classes_128K' | 'varies_by_storage_class';

export const DEFAULT_TRANSITION_MINIMUM_OBJECT_SIZE: TransitionDefaultMinimumObjectSize =
  'all_storage_classes_128K';

export interface LifecycleTag {
  readonly key: string;
  readonly value: string;
}

/**
 * How the rule named its objects, kept so that GetBucketLifecycleConfiguration returns the rule
 * in the form it was put: `legacy-prefix` is the rule's own `<Prefix>` (Lifecycle V1), `filter`
 * a `<Filter>` with zero or one predicate, `and` a `<Filter><And>`.
 */
export type FilterForm = 'legacy-prefix' | 'filter' | 'and';

/** The predicates of a rule, all of which an object must meet. Absent predicates match everything. */
export interface LifecycleFilter {
  readonly prefix?: string;
  readonly tags: readonly LifecycleTag[];
  /** Strictly greater than, in bytes. */
  readonly objectSizeGreaterThan?: number;
  /** Strictly less than, in bytes. */
  readonly objectSizeLessThan?: number;
}

/** Exactly one of `days`, `date`, `expiredObjectDeleteMarker`. */
export interface LifecycleExpiration {
  readonly days?: number;
  /** Midnight UTC, ISO 8601 (`2026-01-01T00:00:00.000Z`). */
  readonly date?: string;
  readonly expiredObjectDeleteMarker?: boolean;
}

/** Exactly one of `days` (0 allowed: the first midnight after creation) and `date`. */
export interface LifecycleTransition {
  readonly days?: number;
  readonly date?: string;
  readonly storageClass: TransitionStorageClass;
}

export interface NoncurrentVersionTransition {
  readonly noncurrentDays: number;
  readonly newerNoncurrentVersions?: number;
  readonly storageClass: TransitionStorageClass;
}

export interface NoncurrentVersionExpiration {
  readonly noncurrentDays: number;
  /** Keep this many newest noncurrent versions whatever their age. */
  readonly newerNoncurrentVersions?: number;
}

export interface AbortIncompleteMultipartUpload {
  readonly daysAfterInitiation: number;
}

export interface LifecycleRule {
  /** As given, or generated (`rule-<position>`) when the rule had none. */
  readonly id: string;
  readonly status: RuleStatus;
  readonly filterForm: FilterForm;
  readonly filter: LifecycleFilter;
  readonly expiration?: LifecycleExpiration;
  readonly transitions: readonly LifecycleTransition[];
  readonly noncurrentVersionTransitions: readonly NoncurrentVersionTransition[];
  readonly noncurrentVersionExpiration?: NoncurrentVersionExpiration;
  readonly abortIncompleteMultipartUpload?: AbortIncompleteMultipartUpload;
}

export interface LifecycleConfiguration {
  readonly rules: readonly LifecycleRule[];
  readonly transitionDefaultMinimumObjectSize: TransitionDefaultMinimumObjectSize;
}

/** Rules alone, or a whole configuration: the engine accepts either. */
export type LifecycleRules = LifecycleConfiguration | readonly LifecycleRule[];

/** A rule list as a configuration with AWS's default transition minimum size. */
export function toConfiguration(rules: LifecycleRules): LifecycleConfiguration {
  return isRuleList(rules)
    ? { rules, transitionDefaultMinimumObjectSize: DEFAULT_TRANSITION_MINIMUM_OBJECT_SIZE }
    : rules;
}

function isRuleList(rules: LifecycleRules): rules is readonly LifecycleRule[] {
  return Array.isArray(rules);
}
