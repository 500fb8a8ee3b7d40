import { LifecycleRules, toConfiguration } from './configuration';
import { matchesFilter, ObjectTags } from './filter';
import { LifecycleAction } from './evaluate-object';
import { dueAfterDays, Instant, LifecycleTiming, toMs } from './timing';

/**
 * Whether an action should have been carried out more than `graceMs` ago: the scanner's count of
 * versions that "by the rule should long have been deleted but were not", the early warning that
 * cleanup is stuck (seed 000). Marker removals never count: when a marker became the last version
 * is not recorded, so their `dueAt` is only a lower bound.
 */
export function isOverdue(action: LifecycleAction, now: Instant, graceMs: number): boolean {
  return action.kind !== 'remove-delete-marker' && toMs(now) - action.dueAt.getTime() > graceMs;
}

/** The current version of an object, as PutObject / HeadObject know it. */
export interface CurrentObject {
  readonly key: string;
  readonly size: number;
  readonly lastModified: Instant;
  readonly tags?: ObjectTags;
}

/**
 * When the current version will expire and by which rule (the earliest Expiration Days/Date of the
 * enabled rules it meets): the `expiry-date` and `rule-id` of the `x-amz-expiration` header.
 */
export function objectExpiration(
  rules: LifecycleRules,
  object: CurrentObject,
  timing: LifecycleTiming,
): { ruleId: string; expiresAt: Date } | undefined {
  const created = toMs(object.lastModified);
  let best: { ruleId: string; ms: number } | undefined;
  for (const rule of toConfiguration(rules).rules) {
    const expiration = rule.expiration;
    if (rule.status !== 'Enabled' || expiration === undefined || !matchesFilter(rule.filter, object))
      continue;
    let ms: number | undefined;
    if (expiration.days !== undefined) ms = dueAfterDays(created, expiration.days, timing);
    else if (expiration.date !== undefined) ms = Date.parse(expiration.date);
    if (ms !== undefined && (best === undefined || ms < best.ms)) best = { ruleId: rule.id, ms };
  }
  return best === undefined ? undefined : { ruleId: best.ruleId, expiresAt: new Date(best.ms) };
}
