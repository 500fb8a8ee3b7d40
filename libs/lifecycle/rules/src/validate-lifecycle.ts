import {
  LifecycleExpiration,
  LifecycleFilter,
  LifecycleRule,
  LifecycleTransition,
  TransitionStorageClass,
} from './configuration';
import { LifecycleConfigurationError } from './errors';
import type { GivenRule, GivenScope, GivenTransition } from './read-lifecycle-xml';
import { INFREQUENT_ACCESS_CLASSES, waterfallRank } from './storage-classes';
import { DAY_MS } from './timing';

/** Most rules one configuration may hold (AWS's limit). */
export const MAX_LIFECYCLE_RULES = 1000;
/** Longest rule ID AWS accepts. */
export const MAX_RULE_ID_LENGTH = 255;
/** AWS documents NewerNoncurrentVersions up to 100; the scanner keeps no more versions than that. */
export const MAX_NEWER_NONCURRENT_VERSIONS = 100;
/** The largest size a filter may name: 1000 × 2^40 bytes. */
export const MAX_FILTER_OBJECT_SIZE = 1_099_511_627_776_000;
/** Days S3 keeps an object out of STANDARD_IA / ONEZONE_IA. */
export const INFREQUENT_ACCESS_MINIMUM_DAYS = 30;

/** How parseLifecycleXml reads a body beyond the XML itself. */
export interface ParseLifecycleOptions {
  /** The request's `x-amz-transition-default-minimum-object-size` header, if any. */
  transitionDefaultMinimumObjectSize?: string;
  /**
   * Drop AWS's 30-day minimum before STANDARD_IA / ONEZONE_IA. Meant for the debug timing, where a
   * "day" lasts seconds and stories must run in a minute; every other check stays AWS's.
   */
  relaxTransitionMinimumDays?: boolean;
}

// ---- the value pass: AWS's InvalidArgument / InvalidRequest answers ---------------------------------

/** The rules as S3 accepts them, checked by value, named, or refused with AWS's answer. */
export function validateRules(given: readonly GivenRule[], options: ParseLifecycleOptions): LifecycleRule[] {
  if (given.length === 0)
    throw LifecycleConfigurationError.invalidRequest('At least one lifecycle rule must be specified.');
  if (given.length > MAX_LIFECYCLE_RULES) {
    throw LifecycleConfigurationError.invalidRequest(
      `The number of lifecycle rules must not exceed the allowed limit of ${MAX_LIFECYCLE_RULES} rules.`,
    );
  }
  const ids = new Set<string>();
  for (const rule of given) {
    if (rule.id === undefined) continue;
    if (rule.id.length > MAX_RULE_ID_LENGTH) {
      throw LifecycleConfigurationError.invalidArgument(
        `ID length should not exceed allowed limit of ${MAX_RULE_ID_LENGTH}`,
      );
    }
    if (ids.has(rule.id)) {
      throw LifecycleConfigurationError.invalidArgument(
        'Rule ID must be unique. Found same ID for more than one rule',
      );
    }
    ids.add(rule.id);
  }
  // S3 reads a configuration as "Lifecycle V2" when its first rule has a Filter, and then refuses the
  // rule-level Prefix of V1 beside it (and the other way round); NewerNoncurrentVersions is V2-only.
  const v2 = given[0].scope.form !== 'legacy-prefix';
  for (const rule of given) {
    if (v2 && rule.scope.form === 'legacy-prefix') {
      throw LifecycleConfigurationError.invalidRequest(
        'Base level prefix cannot be used in Lifecycle V2, prefixes are only supported in the Filter.',
      );
    }
    if (!v2 && rule.scope.form !== 'legacy-prefix') {
      throw LifecycleConfigurationError.invalidRequest('Filter element can only be used in Lifecycle V2.');
    }
    validateRule(rule, v2, options);
  }
  if (!v2) rejectOverlappingPrefixes(given);
  return nameRules(given).map((id, i) => toRule(given[i], id));
}

function validateRule(rule: GivenRule, v2: boolean, options: ParseLifecycleOptions): void {
  const { filter } = rule.scope;
  const where = describeFilter(rule.scope);
  if (
    rule.expiration === undefined &&
    rule.transitions.length === 0 &&
    rule.noncurrentTransitions.length === 0 &&
    rule.noncurrentExpiration === undefined &&
    rule.abort === undefined
  ) {
    throw LifecycleConfigurationError.invalidRequest('At least one action needs to be specified in a rule');
  }
  validateFilter(filter);
  const hasTags = filter.tags.length > 0;
  const hasSizes = filter.objectSizeGreaterThan !== undefined || filter.objectSizeLessThan !== undefined;

  const expiration = rule.expiration;
  if (expiration?.days !== undefined && expiration.days <= 0) {
    throw LifecycleConfigurationError.invalidArgument(
      "'Days' for Expiration action must be a positive integer",
    );
  }
  if (expiration?.dateMs !== undefined) requireMidnight(expiration.dateMs);
  if (expiration?.expiredObjectDeleteMarker !== undefined) {
    // Delete markers carry no tags and no size, so such a filter could never select one.
    if (hasTags)
      throw LifecycleConfigurationError.invalidRequest(
        'ExpiredObjectDeleteMarker cannot be specified with Tags.',
      );
    if (hasSizes) {
      throw LifecycleConfigurationError.invalidRequest(
        'ExpiredObjectDeleteMarker cannot be specified with Object Size.',
      );
    }
  }

  validateTransitions(rule, where, options);
  validateNoncurrent(rule, v2, where, options);

  if (rule.abort !== undefined) {
    if (rule.abort.daysAfterInitiation <= 0) {
      throw LifecycleConfigurationError.invalidArgument(
        "'DaysAfterInitiation' for AbortIncompleteMultipartUpload action must be a positive integer",
      );
    }
    // An upload in progress has neither tags nor a size yet.
    if (hasTags)
      throw LifecycleConfigurationError.invalidRequest(
        'AbortIncompleteMultipartUpload cannot be specified with Tags.',
      );
    if (hasSizes) {
      throw LifecycleConfigurationError.invalidRequest(
        'AbortIncompleteMultipartUpload cannot be specified with Object Size.',
      );
    }
  }
}

function validateFilter(filter: LifecycleFilter): void {
  const keys = new Set<string>();
  for (const tag of filter.tags) {
    if (keys.has(tag.key))
      throw LifecycleConfigurationError.invalidRequest('Duplicate Tag Keys are not allowed.');
    keys.add(tag.key);
  }
  const { objectSizeGreaterThan: greater, objectSizeLessThan: less } = filter;
  if (greater !== undefined && (greater < 0 || greater > MAX_FILTER_OBJECT_SIZE)) {
    throw LifecycleConfigurationError.invalidRequest(
      `'ObjectSizeGreaterThan' should be between 0 and ${MAX_FILTER_OBJECT_SIZE}.`,
    );
  }
  if (less !== undefined && (less < 1 || less > MAX_FILTER_OBJECT_SIZE)) {
    throw LifecycleConfigurationError.invalidRequest(
      `'ObjectSizeLessThan' should be between 1 and ${MAX_FILTER_OBJECT_SIZE}.`,
    );
  }
  if (greater !== undefined && less !== undefined && greater >= less) {
    throw LifecycleConfigurationError.invalidRequest(
      "'ObjectSizeLessThan' has to be a value greater than 'ObjectSizeGreaterThan'.",
    );
  }
}

function validateTransitions(rule: GivenRule, where: string, options: ParseLifecycleOptions): void {
  const seen = new Set<TransitionStorageClass>();
  for (const transition of rule.transitions) {
    if (transition.days !== undefined) {
      if (transition.days < 0) {
        throw LifecycleConfigurationError.invalidArgument("'Days' in Transition action must be nonnegative");
      }
      if (
        !options.relaxTransitionMinimumDays &&
        INFREQUENT_ACCESS_CLASSES.includes(transition.storageClass) &&
        transition.days < INFREQUENT_ACCESS_MINIMUM_DAYS
      ) {
        throw LifecycleConfigurationError.invalidArgument(
          `'Days' in Transition action must be greater than or equal to ${INFREQUENT_ACCESS_MINIMUM_DAYS} for storageClass '${transition.storageClass}'`,
        );
      }
    } else {
      requireMidnight(transition.dateMs!);
    }
    if (seen.has(transition.storageClass)) {
      throw LifecycleConfigurationError.invalidRequest(
        `'StorageClass' must be different for 'Transition' actions in same 'Rule' with filter '${where}'`,
      );
    }
    seen.add(transition.storageClass);
  }
  const bases = new Set(rule.transitions.map((t) => (t.days !== undefined ? 'Days' : 'Date')));
  if (bases.size > 1) {
    throw LifecycleConfigurationError.invalidRequest(
      `Found mixed 'Date' and 'Days' based Transition actions in lifecycle rule for filter '${where}'`,
    );
  }
  const expiration = rule.expiration;
  const expirationBase =
    expiration?.days !== undefined ? 'Days' : expiration?.dateMs !== undefined ? 'Date' : undefined;
  if (bases.size === 1 && expirationBase !== undefined && !bases.has(expirationBase)) {
    throw LifecycleConfigurationError.invalidRequest(
      `Found mixed 'Date' and 'Days' based Expiration and Transition actions in lifecycle rule for filter '${where}'`,
    );
  }
  const field = bases.has('Date') ? 'Date' : 'Days';
  const when = (t: GivenTransition) => t.days ?? t.dateMs!;
  const ordered = [...rule.transitions].sort(
    (a, b) => waterfallRank(a.storageClass) - waterfallRank(b.storageClass),
  );
  for (let i = 1; i < ordered.length; i++) {
    const [warmer, colder] = [ordered[i - 1], ordered[i]];
    if (when(colder) <= when(warmer)) {
      throw LifecycleConfigurationError.invalidArgument(
        `'${field}' in the Transition action for StorageClass '${colder.storageClass}' for filter '${where}' must be greater than '${field}' in the Transition action for StorageClass '${warmer.storageClass}' for filter '${where}'`,
      );
    }
  }
  const expiresAt = expiration?.days ?? expiration?.dateMs;
  if (expiresAt !== undefined && rule.transitions.some((t) => expiresAt <= when(t))) {
    throw LifecycleConfigurationError.invalidArgument(
      `'${field}' in the Expiration action for filter '${where}' must be greater than '${field}' in the Transition action`,
    );
  }
}

function validateNoncurrent(
  rule: GivenRule,
  v2: boolean,
  where: string,
  options: ParseLifecycleOptions,
): void {
  const newer = (count: number | undefined) => {
    if (count === undefined) return;
    if (!v2) {
      throw LifecycleConfigurationError.invalidRequest(
        'NewerNoncurrentVersions element can only be used in Lifecycle V2.',
      );
    }
    if (count < 1)
      throw LifecycleConfigurationError.invalidArgument(
        "'NewerNoncurrentVersions' must be a positive integer",
      );
    if (count > MAX_NEWER_NONCURRENT_VERSIONS) {
      throw LifecycleConfigurationError.invalidArgument(
        `'NewerNoncurrentVersions' must not exceed ${MAX_NEWER_NONCURRENT_VERSIONS}`,
      );
    }
  };
  const expiration = rule.noncurrentExpiration;
  if (expiration !== undefined) {
    if (expiration.noncurrentDays <= 0) {
      throw LifecycleConfigurationError.invalidArgument(
        "'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer",
      );
    }
    newer(expiration.newerNoncurrentVersions);
  }
  const seen = new Set<TransitionStorageClass>();
  for (const transition of rule.noncurrentTransitions) {
    if (transition.noncurrentDays < 0) {
      throw LifecycleConfigurationError.invalidArgument(
        "'NoncurrentDays' in NoncurrentVersionTransition action must be nonnegative",
      );
    }
    if (
      !options.relaxTransitionMinimumDays &&
      INFREQUENT_ACCESS_CLASSES.includes(transition.storageClass) &&
      transition.noncurrentDays < INFREQUENT_ACCESS_MINIMUM_DAYS
    ) {
      throw LifecycleConfigurationError.invalidArgument(
        `'NoncurrentDays' in NoncurrentVersionTransition action must be greater than or equal to ${INFREQUENT_ACCESS_MINIMUM_DAYS} for storageClass '${transition.storageClass}'`,
      );
    }
    newer(transition.newerNoncurrentVersions);
    if (seen.has(transition.storageClass)) {
      throw LifecycleConfigurationError.invalidRequest(
        `'StorageClass' must be different for 'NoncurrentVersionTransition' actions in same 'Rule' with filter '${where}'`,
      );
    }
    seen.add(transition.storageClass);
  }
  const ordered = [...rule.noncurrentTransitions].sort(
    (a, b) => waterfallRank(a.storageClass) - waterfallRank(b.storageClass),
  );
  for (let i = 1; i < ordered.length; i++) {
    const [warmer, colder] = [ordered[i - 1], ordered[i]];
    if (colder.noncurrentDays <= warmer.noncurrentDays) {
      throw LifecycleConfigurationError.invalidArgument(
        `'NoncurrentDays' in the NoncurrentVersionTransition action for StorageClass '${colder.storageClass}' for filter '${where}' must be greater than 'NoncurrentDays' in the NoncurrentVersionTransition action for StorageClass '${warmer.storageClass}' for filter '${where}'`,
      );
    }
  }
  if (expiration !== undefined && ordered.some((t) => expiration.noncurrentDays <= t.noncurrentDays)) {
    throw LifecycleConfigurationError.invalidArgument(
      `'NoncurrentDays' in the NoncurrentVersionExpiration action for filter '${where}' must be greater than 'NoncurrentDays' in the NoncurrentVersionTransition action`,
    );
  }
}

function requireMidnight(ms: number): void {
  if (ms % DAY_MS !== 0) throw LifecycleConfigurationError.invalidArgument("'Date' must be at midnight GMT");
}

/**
 * Lifecycle V1 has no way to order overlapping rules, so S3 refuses two rules taking the same kind
 * of action whose prefixes overlap (one begins the other).
 */
function rejectOverlappingPrefixes(given: readonly GivenRule[]): void {
  const kinds: [string, (r: GivenRule) => boolean][] = [
    ['Expiration', (r) => r.expiration !== undefined],
    ['Transition', (r) => r.transitions.length > 0],
    ['NoncurrentVersionTransition', (r) => r.noncurrentTransitions.length > 0],
    ['NoncurrentVersionExpiration', (r) => r.noncurrentExpiration !== undefined],
    ['AbortIncompleteMultipartUpload', (r) => r.abort !== undefined],
  ];
  for (const [kind, takes] of kinds) {
    const prefixes = given
      .filter(takes)
      .map((r) => r.scope.filter.prefix ?? '')
      .sort();
    for (let i = 1; i < prefixes.length; i++) {
      if (prefixes[i].startsWith(prefixes[i - 1])) {
        throw LifecycleConfigurationError.invalidRequest(
          `Found overlapping prefixes '${prefixes[i - 1]}' and '${prefixes[i]}' for same action type '${kind}'`,
        );
      }
    }
  }
}

/** AWS's rendering of a rule's filter in its messages, e.g. `(prefix=logs/ and objectsizelessthan=120)`. */
function describeFilter(scope: GivenScope): string {
  const { filter } = scope;
  const parts: string[] = [];
  if (filter.prefix !== undefined) parts.push(`prefix=${filter.prefix}`);
  for (const tag of filter.tags) parts.push(`tag={key=${tag.key}, value=${tag.value}}`);
  if (filter.objectSizeGreaterThan !== undefined)
    parts.push(`objectsizegreaterthan=${filter.objectSizeGreaterThan}`);
  if (filter.objectSizeLessThan !== undefined) parts.push(`objectsizelessthan=${filter.objectSizeLessThan}`);
  return parts.length === 0 ? '(prefix=)' : `(${parts.join(' and ')})`;
}

/**
 * Every rule's ID: its own, or `rule-<position>` (1-based), or `rule-<position>-<n>` (n ≥ 2) when
 * that is taken by another rule. Deterministic, so re-putting the same document yields the same IDs.
 */
function nameRules(given: readonly GivenRule[]): string[] {
  const taken = new Set(given.flatMap((r) => (r.id === undefined ? [] : [r.id])));
  return given.map((rule, i) => {
    if (rule.id !== undefined) return rule.id;
    let id = `rule-${i + 1}`;
    for (let n = 2; taken.has(id); n++) id = `rule-${i + 1}-${n}`;
    taken.add(id);
    return id;
  });
}

function toRule(rule: GivenRule, id: string): LifecycleRule {
  const iso = (ms: number) => new Date(ms).toISOString();
  const expiration = rule.expiration;
  let outExpiration: LifecycleExpiration | undefined;
  if (expiration?.days !== undefined) outExpiration = { days: expiration.days };
  else if (expiration?.dateMs !== undefined) outExpiration = { date: iso(expiration.dateMs) };
  else if (expiration !== undefined)
    outExpiration = { expiredObjectDeleteMarker: expiration.expiredObjectDeleteMarker };
  const transitions: LifecycleTransition[] = rule.transitions.map((t) =>
    t.days !== undefined
      ? { days: t.days, storageClass: t.storageClass }
      : { date: iso(t.dateMs!), storageClass: t.storageClass },
  );
  return {
    id,
    status: rule.status,
    filterForm: rule.scope.form,
    filter: rule.scope.filter,
    ...(outExpiration !== undefined ? { expiration: outExpiration } : {}),
    transitions,
    noncurrentVersionTransitions: rule.noncurrentTransitions,
    ...(rule.noncurrentExpiration !== undefined
      ? { noncurrentVersionExpiration: rule.noncurrentExpiration }
      : {}),
    ...(rule.abort !== undefined ? { abortIncompleteMultipartUpload: rule.abort } : {}),
  };
}
