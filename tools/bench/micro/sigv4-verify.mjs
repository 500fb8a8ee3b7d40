#!/usr/bin/env node
// CPU per SigV4 header verification (parse + verify) of each given checkout's build, alternating
// rounds in one process: `node tools/bench/micro/sigv4-verify.mjs <root> [<root> …] [--n 100000] [--rounds 7]`.
// Each <root> needs its `npm run build` output (dist/libs/s3/protocol/src/sigv4.js). The request is
// a warp-like GET signed here with node:crypto's createHmac, independently of the code measured.
// Prints ns per verification (CPU time from process.cpuUsage, GC included) per round and the median.
import { createHash, createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(args[i + 1]);
  args.splice(i, 2);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name}: a whole number >= 1`);
  return v;
};
const n = opt('--n', 100_000);
const rounds = opt('--rounds', 7);
if (args.length === 0) throw new Error('usage: sigv4-verify.mjs <root> [<root> …] [--n N] [--rounds R]');
const require = createRequire(import.meta.url);
const builds = args.map((root) => ({ root, sigv4: require(resolve(root, 'dist/libs/s3/protocol/src/sigv4.js')) }));

const secret = 'ostore-bench-micro-secret-0000000000000000';
const now = new Date();
const amzDate = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
const day = amzDate.slice(0, 8);
const scope = `${day}/us-east-1/s3/aws4_request`;
const headers = { host: '127.0.0.1:9000', 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'x-amz-date': amzDate, 'user-agent': 'MinIO (linux; amd64) minio-go/v7.0.70 warp/1.6.1' };
const signed = ['host', 'x-amz-content-sha256', 'x-amz-date'];
const rawPath = '/bench-get/Lk1Yb3c5/1.Jq8xsWm5yG3hK2nT.rnd';
const canonical = ['GET', rawPath, '', ...signed.map((h) => `${h}:${headers[h]}`), '', signed.join(';'), 'UNSIGNED-PAYLOAD'].join('\n');
const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
const hmac = (k, d) => createHmac('sha256', k).update(d).digest();
const key = hmac(hmac(hmac(hmac(Buffer.from(`AWS4${secret}`), day), 'us-east-1'), 's3'), 'aws4_request');
const signature = createHmac('sha256', key).update(toSign).digest('hex');
const req = { method: 'GET', rawPath, query: [], headers: { ...headers, authorization: `AWS4-HMAC-SHA256 Credential=BENCHKEY/${scope}, SignedHeaders=${signed.join(';')}, Signature=${signature}` } };

const once = (b) => b.sigv4.verifySigV4(b.sigv4.parseSigV4(req), req, secret, now);
for (const b of builds) once(b); // throws if the request does not verify
const results = new Map(builds.map((b) => [b.root, []]));
for (let r = 0; r < rounds + 1; r++) {
  const order = r % 2 === 0 ? builds : [...builds].reverse();
  for (const b of order) {
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) once(b);
    const used = process.cpuUsage(before);
    if (r > 0) results.get(b.root).push(((used.user + used.system) * 1000) / n); // round 0 warms the JIT
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const [root, xs] of results) console.log(`${root}: ${median(xs).toFixed(0)} ns CPU per verification (median of ${xs.length}; rounds ${xs.map((x) => x.toFixed(0)).join(', ')})`);
