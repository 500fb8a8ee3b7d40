/**
 * Micro-benchmark of the bucket-policy step of authorization (issue 12: "authorization costs
 * nothing measurable for buckets without a policy"). Times, per request: the check a bucket
 * without a policy or Public Access Block pays (two property tests), and the whole evaluation of a
 * stored 12-statement policy with conditions (parse cached, context built, statements matched).
 *
 *   node -r @swc-node/register tools/bench/policy/authorize-micro.ts
 */
import { evaluatePolicy, resourceArn, storedBucketPolicy } from '@ostore/s3/policy';
import { benchPolicyDocument } from './bench-policy';

const bucket = 'bench-bucket';
const document = benchPolicyDocument(bucket);

function time(label: string, n: number, fn: (i: number) => unknown): number {
  for (let i = 0; i < n / 10; i++) fn(i);
  const start = process.hrtime.bigint();
  let sink = 0;
  for (let i = 0; i < n; i++) if (fn(i)) sink++;
  const ns = Number(process.hrtime.bigint() - start) / n;
  console.log(`${label}: ${ns.toFixed(1)} ns per request (${sink} truthy)`);
  return ns;
}

const plain: { policy?: string; publicAccessBlock?: string } = {};
const withPolicy: { policy?: string; publicAccessBlock?: string } = { policy: document };
const none = time('bucket without a policy (the gate test)', 5_000_000, () => !!(plain.policy || plain.publicAccessBlock));
const full = time('bucket with a 12-statement policy (evaluate)', 200_000, (i) => {
  const policy = storedBucketPolicy(withPolicy.policy!, bucket);
  const context = { 'aws:sourceip': [`10.0.${i % 250}.1`], 'aws:securetransport': ['false'], 's3:prefix': ['home/x/'], 'aws:userid': ['alice'] };
  return evaluatePolicy(policy, { userId: 'alice', action: 's3:GetObject', resource: resourceArn(bucket, `dir${i % 12}/k${i}`), context }) === 'Allow';
});
const reference = time('reference: parse a listing query string (done on every request)', 200_000, (i) => new URLSearchParams(`list-type=2&prefix=home/${i}/&max-keys=100`).get('prefix'));
console.log(`policy-less check = ${(none / reference).toFixed(4)} × the query parse; 12-statement policy = ${(full / reference).toFixed(2)} ×`);
console.log(`a small GET is ~${(1e9 / 2000 / 1000).toFixed(0)} µs of gateway CPU at the 2,000 GET/s target: the policy-less check is ${((none / 5e5) * 100).toFixed(5)} % of it, a 12-statement policy ${((full / 5e5) * 100).toFixed(3)} %`);
