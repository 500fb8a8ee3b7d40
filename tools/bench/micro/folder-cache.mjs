#!/usr/bin/env node
// CPU per FolderCache.remember of a directory not seen before, with the cache full (20,000 rows,
// the default), for each given checkout's build: `node tools/bench/micro/folder-cache.mjs <root> [<root> …]`.
// Each <root> needs its `npm run build` output. 100,000 directories fill it, 100,000 more are timed:
// a stream of PUTs into ever new directories (one per day, per upload, per user).
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const roots = process.argv.slice(2);
if (roots.length === 0) throw new Error('usage: folder-cache.mjs <root> [<root> …]');
const require = createRequire(import.meta.url);
const n = 100_000;
const row = (i) => [{ parent: 'logs/2026/', name: `upload-${i}/` }];
for (const root of roots) {
  const { FolderCache } = require(resolve(root, 'dist/libs/s3/core/src/folder-cache.js'));
  const cache = new FolderCache({ nowMs: () => 1 }, 60_000);
  for (let i = 0; i < n; i++) cache.remember('object_folders', 'bucket', row(i), 1);
  const before = process.cpuUsage();
  for (let i = n; i < 2 * n; i++) cache.remember('object_folders', 'bucket', row(i), 1);
  const used = process.cpuUsage(before);
  console.log(`${root}: ${(((used.user + used.system) * 1000) / n).toFixed(0)} ns CPU per remembered new directory (20,000 kept)`);
}
