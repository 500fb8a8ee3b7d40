#!/usr/bin/env node
// CPU per RecentKeys.touch of a new key with 65,536 keys remembered (the gateway's default
// recentNullKeys), for each given checkout's build: `node tools/bench/micro/recent-keys.mjs <root> [<root> …]`.
// Each <root> needs its `npm run build` output. 200,000 keys fill the memory, 200,000 more are timed.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const roots = process.argv.slice(2);
if (roots.length === 0) throw new Error('usage: recent-keys.mjs <root> [<root> …]');
const require = createRequire(import.meta.url);
const n = 200_000;
const keys = Array.from({ length: 2 * n }, (_, i) => `0f3c1e2a-5b6d-4e7f-8a9b-0c1d2e3f4a5b\u0000Lk1Yb3c5/${i}.Jq8xsWm5yG3hK2nT.rnd`);
for (const root of roots) {
  const { RecentKeys } = require(resolve(root, 'dist/libs/s3/core/src/null-convergence.js'));
  const recent = new RecentKeys(65_536);
  for (let i = 0; i < n; i++) recent.touch(keys[i]);
  const before = process.cpuUsage();
  for (let i = n; i < 2 * n; i++) recent.touch(keys[i]);
  const used = process.cpuUsage(before);
  console.log(`${root}: ${(((used.user + used.system) * 1000) / n).toFixed(0)} ns CPU per touch of a new key (65,536 remembered)`);
}
