import type { RewrapAnswer } from '../admin/sse-admin.controller';

/** Usage of `npm run admin -- sse ...`. */
export const SSE_USAGE = `  sse rewrap <bucket>                        re-wrap the bucket's SSE-S3 data keys with the current master key
                                              (after a rotation, before an old key leaves S3_SSE_MASTER_KEYS)`;

/** `sse rewrap <bucket>` as one admin API call; undefined for other commands; throws with a precise message. */
export function parseSseArgs(argv: string[]): { method: 'POST'; path: string; render: (answer: unknown) => string } | undefined {
  if (argv[0] !== 'sse') return undefined;
  const [, verb, bucket, ...extra] = argv;
  if (verb !== 'rewrap') throw new Error(verb ? `unknown command "sse ${verb}"` : 'sse needs a command (rewrap)');
  if (!bucket || bucket.startsWith('--')) throw new Error('sse rewrap needs <bucket>');
  if (extra.length) throw new Error(`unexpected argument "${extra[0]}"`);
  return {
    method: 'POST',
    path: `/admin/buckets/${encodeURIComponent(bucket)}/sse/rewrap`,
    render: (a) => {
      const r = a as RewrapAnswer;
      return `${r.bucket}: ${r.rewrapped} of ${r.versions} versions re-wrapped with master key ${r.currentKeyId ?? '(none)'}`;
    },
  };
}
