import { Migration } from '../migration';

/**
 * The live quota ledger (issue 10): what a bucket WITH a quota holds now, kept by the writers
 * themselves (gateway requests, the scheduler's lifecycle deletes) right after each metastore
 * commit, and read fresh by every admission check of a quota bucket.
 *
 * `bucket_quota_ledger` — one partition per bucket id, two counters: `bytes` (every version's
 * size plus in-progress multipart parts) and `objects` (versions that hold data: not delete
 * markers). Counter updates are not idempotent, so writers never retry them blindly; drift (a
 * lost increment, a removal reported twice by racing removers) is corrected by re-basing the
 * counters to an exact recount of the metastore (admin `bucket quota set` / `recount`). Rows are
 * never deleted (a deleted counter cannot be safely incremented again): a bucket whose quota is
 * cleared keeps its row, re-based when a quota is set again; a dropped bucket's id is never reused.
 */
export const quotaLedger: Migration = {
  version: 9,
  name: 'quota-ledger',
  statements: [
    `CREATE TABLE IF NOT EXISTS {ks}.bucket_quota_ledger (
       bucket_id uuid PRIMARY KEY,
       bytes counter,
       objects counter
     )`,
  ],
};
