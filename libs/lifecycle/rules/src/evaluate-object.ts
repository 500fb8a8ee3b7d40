import {
  LifecycleConfiguration,
  LifecycleRule,
  LifecycleRules,
  toConfiguration,
  TransitionStorageClass,
} from './configuration';
import { hasSizePredicate, matchesFilter, ObjectTags } from './filter';
import {
  canTransition,
  SMALL_OBJECT_CLASSES,
  TRANSITION_MINIMUM_OBJECT_SIZE,
  TRANSITION_PREFERENCE,
} from './storage-classes';
import { dueAfterDays, Instant, LifecycleTiming, toMs } from './timing';

/** How many versions of one object the scanner keeps besides the current one (seed 000). */
export const SCANNER_KEPT_VERSIONS = 100;

export type BucketVersioning = 'Unversioned' | 'Enabled' | 'Suspended';

/** One version of an object, as the scanner read it. */
export interface ObjectVersion {
  readonly versionId: string;
  /** The current version. Only this flag says so: never the position in the group. */
  readonly isLatest: boolean;
  readonly isDeleteMarker: boolean;
  /** Bytes; a delete marker's is 0. */
  readonly size: number;
  readonly lastModified: Instant;
  readonly tags?: ObjectTags;
  /** Absent means STANDARD. */
  readonly storageClass?: string;
  /** When the next newer version was written. Computed from the group when absent. */
  readonly becameNoncurrentAt?: Instant;
}

/**
 * One object's versions, newest first. The scanner keeps the newest `SCANNER_KEPT_VERSIONS`
 * versions plus the current one, which may lie outside that window: `keptAll` is false when
 * versions were left out, and then NewerNoncurrentVersions counts only within what was kept.
 */
export interface VersionGroup {
  readonly key: string;
  readonly versioning: BucketVersioning;
  readonly versions: readonly ObjectVersion[];
  readonly keptAll: boolean;
}

/**
 * - `expire-current`: the current version expires — a delete marker in a versioned bucket, a
 *   permanent delete in an unversioned one (a null delete marker replacing the null version in a
 *   suspended one);
 * - `delete-version`: a noncurrent version (or noncurrent delete marker) is deleted for good;
 * - `remove-delete-marker`: a current delete marker with no other version left is removed;
 * - `transition`: the version moves to `storageClass`.
 */
export type LifecycleActionKind = 'expire-current' | 'delete-version' | 'remove-delete-marker' | 'transition';

export type LifecycleReason =
  | 'expiration-days'
  | 'expiration-date'
  | 'expired-object-delete-marker'
  | 'noncurrent-version-expiration'
  | 'transition-days'
  | 'transition-date'
  | 'noncurrent-version-transition';

export interface LifecycleAction {
  readonly kind: LifecycleActionKind;
  readonly versionId: string;
  readonly ruleId: string;
  readonly reason: LifecycleReason;
  /** For `transition` only. */
  readonly storageClass?: TransitionStorageClass;
  /**
   * The earliest instant the action was (or will be) allowed. For a noncurrent version kept by
   * NewerNoncurrentVersions it is the later of its day count and the moment enough newer versions
   * existed. For `remove-delete-marker` it is only a lower bound: when the marker became the last
   * version is not recorded.
   */
  readonly dueAt: Date;
}

interface Candidate {
  readonly action: LifecycleAction;
  readonly dueMs: number;
  readonly ruleIndex: number;
}

/**
 * The lifecycle actions due now for one object's versions, at most one per version, in the
 * group's order. Conflicts are settled as AWS documents: the shortest expiration wins; a permanent
 * delete beats a transition; a transition beats the creation of a delete marker (so in a versioned
 * bucket an object due for both moves first and gets its marker on a later pass); of several
 * transitions the cheapest class wins (Intelligent-Tiering before anything but GLACIER and
 * DEEP_ARCHIVE). Safety, whatever the rules say: the current version is touched only by current
 * version actions; a delete marker is removed only when it is current and the group, complete,
 * holds nothing else; a group with more than one current version is left alone.
 */
export function evaluateObject(
  rules: LifecycleRules,
  group: VersionGroup,
  now: Instant,
  timing: LifecycleTiming,
): LifecycleAction[] {
  const nowMs = toMs(now);
  return collectCandidates(toConfiguration(rules), group, nowMs, timing).flatMap((candidates) => {
    const chosen = resolve(
      candidates.filter((c) => c.dueMs <= nowMs),
      group,
    );
    return chosen === undefined ? [] : [chosen.action];
  });
}

/**
 * For each version that some rule will act on, the earliest such action and when it falls due,
 * past or future: what an overdue metric compares with the clock. Versions no rule will reach, or
 * that wait on a condition other than time (too few newer noncurrent versions, a delete marker
 * that still hides versions), are absent.
 */
export function nextDueAt(
  rules: LifecycleRules,
  group: VersionGroup,
  now: Instant,
  timing: LifecycleTiming,
): LifecycleAction[] {
  return collectCandidates(toConfiguration(rules), group, toMs(now), timing).flatMap((candidates) => {
    const first = earliest(candidates);
    return first === undefined ? [] : [first.action];
  });
}

function resolve(due: readonly Candidate[], group: VersionGroup): Candidate | undefined {
  if (due.length === 0) return undefined;
  const removal = earliest(due.filter((c) => c.action.kind === 'remove-delete-marker'));
  if (removal !== undefined) return removal;
  const deletion = earliest(due.filter((c) => c.action.kind === 'delete-version'));
  if (deletion !== undefined) return deletion;
  const expiry = earliest(due.filter((c) => c.action.kind === 'expire-current'));
  const transition = cheapest(due.filter((c) => c.action.kind === 'transition'));
  if (
    expiry !== undefined &&
    (transition === undefined || expiresPermanently(group, expiry.action.versionId))
  ) {
    return expiry;
  }
  return transition;
}

/** An expiration that deletes data, rather than hiding it under a new delete marker. */
function expiresPermanently(group: VersionGroup, versionId: string): boolean {
  return group.versioning === 'Unversioned' || (group.versioning === 'Suspended' && versionId === 'null');
}

function earliest(candidates: readonly Candidate[]): Candidate | undefined {
  let best: Candidate | undefined;
  for (const c of candidates) {
    if (
      best === undefined ||
      c.dueMs < best.dueMs ||
      (c.dueMs === best.dueMs && c.ruleIndex < best.ruleIndex)
    ) {
      best = c;
    }
  }
  return best;
}

function cheapest(candidates: readonly Candidate[]): Candidate | undefined {
  let best: Candidate | undefined;
  const rank = (c: Candidate) => TRANSITION_PREFERENCE[c.action.storageClass!];
  for (const c of candidates) {
    if (best === undefined || rank(c) > rank(best) || (rank(c) === rank(best) && earliest([best, c]) === c)) {
      best = c;
    }
  }
  return best;
}

/** Every action any enabled rule allows for each version (due or not), indexed like `group.versions`. */
function collectCandidates(
  config: LifecycleConfiguration,
  group: VersionGroup,
  nowMs: number,
  timing: LifecycleTiming,
): Candidate[][] {
  const out: Candidate[][] = group.versions.map(() => []);
  // Every version has the group's key, so the prefix is judged once; tags and size per version.
  const rules = config.rules
    .map((rule, ruleIndex) => ({ rule, ruleIndex }))
    .filter(({ rule }) => rule.status === 'Enabled' && group.key.startsWith(rule.filter.prefix ?? ''));
  const currentIndexes = group.versions.flatMap((v, i) => (v.isLatest ? [i] : []));
  if (rules.length === 0 || currentIndexes.length > 1) return out;
  const current = currentIndexes.length === 1 ? group.versions[currentIndexes[0]] : undefined;

  if (current !== undefined) {
    const target = out[currentIndexes[0]];
    if (!current.isDeleteMarker) {
      currentVersionCandidates(config, rules, group.key, current, timing, target);
    } else if (group.keptAll && group.versions.length === 1) {
      loneMarkerCandidates(rules, group.key, current, timing, target);
    }
  }

  const noncurrent = group.versions.flatMap((v, i) => (v.isLatest ? [] : [{ version: v, index: i }]));
  const since = noncurrentSince(
    noncurrent.map((n) => n.version),
    current,
  );
  noncurrent.forEach(({ version, index }, position) => {
    const sinceMs = since[position];
    if (sinceMs === undefined) return;
    const enoughNewer = (keep: number | undefined): number | undefined => {
      if (keep === undefined) return Number.NEGATIVE_INFINITY;
      if (position < keep) return undefined;
      return since[position - keep] ?? nowMs;
    };
    for (const { rule, ruleIndex } of rules) {
      if (!matchesFilter(rule.filter, subject(group.key, version))) continue;
      const nve = rule.noncurrentVersionExpiration;
      if (nve !== undefined) {
        const countedAt = enoughNewer(nve.newerNoncurrentVersions);
        if (countedAt !== undefined) {
          const dueMs = Math.max(dueAfterDays(sinceMs, nve.noncurrentDays, timing), countedAt);
          out[index].push(
            candidate('delete-version', version, rule, ruleIndex, 'noncurrent-version-expiration', dueMs),
          );
        }
      }
      if (version.isDeleteMarker) continue;
      for (const t of rule.noncurrentVersionTransitions) {
        const countedAt = enoughNewer(t.newerNoncurrentVersions);
        if (countedAt === undefined || !transitionAllowed(config, rule, version, t.storageClass)) continue;
        const dueMs = Math.max(dueAfterDays(sinceMs, t.noncurrentDays, timing), countedAt);
        out[index].push(
          candidate(
            'transition',
            version,
            rule,
            ruleIndex,
            'noncurrent-version-transition',
            dueMs,
            t.storageClass,
          ),
        );
      }
    }
  });
  return out;
}

function currentVersionCandidates(
  config: LifecycleConfiguration,
  rules: readonly { rule: LifecycleRule; ruleIndex: number }[],
  key: string,
  version: ObjectVersion,
  timing: LifecycleTiming,
  out: Candidate[],
): void {
  const created = toMs(version.lastModified);
  for (const { rule, ruleIndex } of rules) {
    if (!matchesFilter(rule.filter, subject(key, version))) continue;
    const expiration = rule.expiration;
    if (expiration?.days !== undefined) {
      const dueMs = dueAfterDays(created, expiration.days, timing);
      out.push(candidate('expire-current', version, rule, ruleIndex, 'expiration-days', dueMs));
    } else if (expiration?.date !== undefined) {
      out.push(
        candidate('expire-current', version, rule, ruleIndex, 'expiration-date', Date.parse(expiration.date)),
      );
    }
    for (const t of rule.transitions) {
      if (!transitionAllowed(config, rule, version, t.storageClass)) continue;
      const [reason, dueMs]: [LifecycleReason, number] =
        t.days !== undefined
          ? ['transition-days', dueAfterDays(created, t.days, timing)]
          : ['transition-date', Date.parse(t.date!)];
      out.push(candidate('transition', version, rule, ruleIndex, reason, dueMs, t.storageClass));
    }
  }
}

/**
 * A current delete marker with nothing beneath it goes under ExpiredObjectDeleteMarker at once,
 * and under a current-version Expiration once that expiration is due for the marker itself:
 * "When you specify the Days tag, Amazon S3 automatically performs ExpiredObjectDeleteMarker
 * cleanup when the delete markers are old enough to satisfy the age criteria". A Date expiration
 * is read the same way (AWS: "if the lifecycle configuration is set to delete current versions").
 */
function loneMarkerCandidates(
  rules: readonly { rule: LifecycleRule; ruleIndex: number }[],
  key: string,
  marker: ObjectVersion,
  timing: LifecycleTiming,
  out: Candidate[],
): void {
  const created = toMs(marker.lastModified);
  for (const { rule, ruleIndex } of rules) {
    const expiration = rule.expiration;
    if (expiration === undefined || !matchesFilter(rule.filter, subject(key, marker))) continue;
    if (expiration.expiredObjectDeleteMarker === true) {
      const dueMs = dueAfterDays(created, 0, timing);
      out.push(
        candidate('remove-delete-marker', marker, rule, ruleIndex, 'expired-object-delete-marker', dueMs),
      );
    } else if (expiration.days !== undefined) {
      const dueMs = dueAfterDays(created, expiration.days, timing);
      out.push(candidate('remove-delete-marker', marker, rule, ruleIndex, 'expiration-days', dueMs));
    } else if (expiration.date !== undefined) {
      const dueMs = Date.parse(expiration.date);
      out.push(candidate('remove-delete-marker', marker, rule, ruleIndex, 'expiration-date', dueMs));
    }
  }
}

/**
 * When each noncurrent version (newest first) became noncurrent: as given, else when the next
 * newer kept version — the current one for the newest — was written, and never before the version
 * itself. Where versions are missing between two kept ones this gives a later time than the truth,
 * so an action can only come late, never early. Unknown (undefined) for the newest noncurrent
 * version of a group without a current version.
 */
function noncurrentSince(
  noncurrent: readonly ObjectVersion[],
  current: ObjectVersion | undefined,
): (number | undefined)[] {
  return noncurrent.map((version, i) => {
    if (version.becameNoncurrentAt !== undefined) return toMs(version.becameNoncurrentAt);
    const successor = i > 0 ? noncurrent[i - 1] : current;
    if (successor === undefined) return undefined;
    return Math.max(toMs(successor.lastModified), toMs(version.lastModified));
  });
}

/**
 * A transition is taken only down AWS's waterfall (never to the class the version is in, or a
 * warmer one) and, by default, not for objects under 128 KiB: none of them with
 * `all_storage_classes_128K`, only to GLACIER / DEEP_ARCHIVE with `varies_by_storage_class`. A rule
 * that names a size itself overrides that default.
 */
function transitionAllowed(
  config: LifecycleConfiguration,
  rule: LifecycleRule,
  version: ObjectVersion,
  to: TransitionStorageClass,
): boolean {
  if (!canTransition(version.storageClass, to)) return false;
  if (hasSizePredicate(rule.filter) || version.size >= TRANSITION_MINIMUM_OBJECT_SIZE) return true;
  return (
    config.transitionDefaultMinimumObjectSize === 'varies_by_storage_class' &&
    SMALL_OBJECT_CLASSES.includes(to)
  );
}

function subject(key: string, version: ObjectVersion) {
  return version.isDeleteMarker ? { key, size: 0 } : { key, size: version.size, tags: version.tags };
}

function candidate(
  kind: LifecycleActionKind,
  version: ObjectVersion,
  rule: LifecycleRule,
  ruleIndex: number,
  reason: LifecycleReason,
  dueMs: number,
  storageClass?: TransitionStorageClass,
): Candidate {
  return {
    action: {
      kind,
      versionId: version.versionId,
      ruleId: rule.id,
      reason,
      ...(storageClass !== undefined ? { storageClass } : {}),
      dueAt: new Date(dueMs),
    },
    dueMs,
    ruleIndex,
  };
}
