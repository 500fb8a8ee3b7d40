export * from './api';
export * from './s3-core.module';
export * from './s3-core';
export * from './s3-core.options';
export * from './usage';
export { CassandraBucketsService } from './buckets.service';
export { CassandraObjectsService } from './objects.service';
export { CassandraMultipartService } from './multipart.service';
export {
  CassandraUsersService,
  generateAccessKeyId,
  generateSecretAccessKey,
  MAX_ACCESS_KEY_ID_LENGTH,
  MAX_USER_ID_LENGTH,
  USER_ID_PATTERN,
  ACCESS_KEY_ID_PATTERN,
} from './users.service';
export { splitKey, joinKey, compareUtf8 } from './keys';
export type { BucketKey } from './version-data';
export { quotaOf, QuotaGuard, QuotaTicket, quotaExceeded } from './quota/quota-guard';
export { defaultQuotaLedgerSettings } from './quota/quota-state';
export type { QuotaLedgerSettings } from './quota/quota-state';
export type { QuotaLimits, QuotaWant } from './quota/quota-guard';
export { QuotaMetrics, NoopQuotaMetrics } from './quota/quota-metrics';
export { ConvergenceMetrics, NoopConvergenceMetrics } from './convergence-metrics';
export type { ConvergenceMetricsSink, ConvergenceStep } from './convergence-metrics';
export type { QuotaMetricsSink } from './quota/quota-metrics';
export { BucketQuotasService } from './quota/bucket-quotas.service';
export type { BucketUsage, BucketSummary, QuotaChange } from './quota/bucket-quotas.service';
export { checksumTypeOf } from './object-checksum';
