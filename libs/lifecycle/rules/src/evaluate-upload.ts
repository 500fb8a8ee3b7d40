import { LifecycleRules, toConfiguration } from './configuration';
import { matchesFilter, ObjectTags } from './filter';
import { dueAfterDays, Instant, LifecycleTiming, toMs } from './timing';

/** An incomplete multipart upload. */
export interface MultipartUploadInfo {
  readonly key: string;
  readonly initiated: Instant;
}

export interface AbortUploadAction {
  readonly kind: 'abort-upload';
  readonly ruleId: string;
  readonly reason: 'abort-incomplete-multipart-upload';
  readonly dueAt: Date;
}

/**
 * When the upload is to be aborted and under which rule (the earliest-due enabled rule with
 * AbortIncompleteMultipartUpload whose filter the upload meets), due or not: also what
 * CreateMultipartUpload reports as `x-amz-abort-date` / `x-amz-abort-rule-id`. An upload has no
 * tags and no size yet, so only a prefix can select it (S3 refuses the other predicates beside
 * this action anyway).
 */
export function uploadAbortDue(
  rules: LifecycleRules,
  upload: MultipartUploadInfo,
  timing: LifecycleTiming,
): AbortUploadAction | undefined {
  const initiated = toMs(upload.initiated);
  const noTags: ObjectTags = {};
  let best: { dueMs: number; ruleId: string } | undefined;
  for (const rule of toConfiguration(rules).rules) {
    const abort = rule.abortIncompleteMultipartUpload;
    if (rule.status !== 'Enabled' || abort === undefined) continue;
    const { filter } = rule;
    if (filter.objectSizeGreaterThan !== undefined || filter.objectSizeLessThan !== undefined) continue;
    if (!matchesFilter(filter, { key: upload.key, tags: noTags, size: 0 })) continue;
    const dueMs = dueAfterDays(initiated, abort.daysAfterInitiation, timing);
    if (best === undefined || dueMs < best.dueMs) best = { dueMs, ruleId: rule.id };
  }
  return best === undefined
    ? undefined
    : {
        kind: 'abort-upload',
        ruleId: best.ruleId,
        reason: 'abort-incomplete-multipart-upload',
        dueAt: new Date(best.dueMs),
      };
}

/** The abort due now for an incomplete multipart upload, if any. */
export function evaluateUpload(
  rules: LifecycleRules,
  upload: MultipartUploadInfo,
  now: Instant,
  timing: LifecycleTiming,
): AbortUploadAction | undefined {
  const due = uploadAbortDue(rules, upload, timing);
  return due !== undefined && due.dueAt.getTime() <= toMs(now) ? due : undefined;
}
