#!/usr/bin/env node
// MiB/s of the block manager's MD5 passes (Md5Session: each block's own MD5 and the body's) for each
// given checkout's build, in alternating rounds: `node tools/bench/micro/md5-offload.mjs <root> [<root> …]`.
// Each <root> needs its `npm run build` output. A round hashes 4 bodies at once (the 64 MiB PUT
// phase's 4 clients), each 8 blocks of 8 MiB (the default block size) from the block manager's
// own shared buffer pool, each body posting its next block once the previous one is hashed, as an
// upload does. Prints the median rate of each root and the median ratio to the first.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { randomBytes } from 'node:crypto';

const roots = process.argv.slice(2);
if (roots.length === 0) throw new Error('usage: md5-offload.mjs <root> [<root> …]');
const require = createRequire(import.meta.url);
const BLOCK = 8 * 1024 * 1024;
const BLOCKS = 8;
const BODIES = 4;
const ROUNDS = 7;
const arms = roots.map((root) => {
  const { BlockBufferPool, Md5Session } = require(resolve(root, 'dist/libs/storage/blocks/src/index.js'));
  const pool = new BlockBufferPool(BLOCK);
  const buffers = Array.from({ length: BODIES }, () => {
    const b = pool.acquire();
    randomBytes(BLOCK).copy(b);
    return b;
  });
  return { root, Md5Session, buffers, rates: [] };
});

async function body(Md5Session, buffer) {
  const s = new Md5Session();
  for (let i = 0; i < BLOCKS; i++) await s.block(buffer);
  await s.finish();
}

for (let round = 0; round < ROUNDS + 1; round++) {
  // alternate the order; round 0 warms every arm's workers up and is not counted
  const order = round % 2 ? [...arms].reverse() : arms;
  for (const arm of order) {
    const started = process.hrtime.bigint();
    await Promise.all(arm.buffers.map((b) => body(arm.Md5Session, b)));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (round > 0) arm.rates.push((BODIES * BLOCKS * BLOCK) / 2 ** 20 / seconds);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const arm of arms) {
  const ratios = arm.rates.map((r, i) => r / arms[0].rates[i]);
  console.log(`${arm.root}: ${median(arm.rates).toFixed(0)} MiB/s (rounds ${arm.rates.map((r) => r.toFixed(0)).join(', ')}), ÷ first ${median(ratios).toFixed(2)}`);
}
process.exit(0);
