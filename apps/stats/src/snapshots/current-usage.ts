// The reader moved to @ostore/stats/data-access (the bench and the stats HTTP endpoint use it); this path stays for its users.
export { CurrentUsageReader } from '@ostore/stats/data-access';
export type { BucketCurrentUsage } from '@ostore/stats/data-access';
