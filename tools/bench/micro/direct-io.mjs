#!/usr/bin/env node
// CPU per MiB of LocalFsBlockStore.write (the process's, kernel time of the libuv threads included)
// for each given checkout's build, in alternating rounds: `node tools/bench/micro/direct-io.mjs <root> [<root> …]`.
// Each <root> needs its `npm run build` output. A round writes 16 blocks of 8 MiB (the default block
// size), 4 at a time, from the block manager's own buffer pool, as a 64 MiB PUT's blocks arrive.
// Blocks stay on disk until the end, as an upload's do, so every round's buffered writes take new
// page-cache pages. Scratch under tools/bench/.work/direct-io (about 1 GiB per root), removed after.
import { createRequire } from 'node:module';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { randomBytes } from 'node:crypto';

const roots = process.argv.slice(2);
if (roots.length === 0) throw new Error('usage: direct-io.mjs <root> [<root> …]');
const require = createRequire(import.meta.url);
const BLOCK = 8 * 1024 * 1024;
const PER_ROUND = 16;
const ROUNDS = 4;
const scratch = resolve(import.meta.dirname, '../.work/direct-io');
rmSync(scratch, { recursive: true, force: true });
const arms = roots.map((root, i) => {
  const { newBlockId, BlockBufferPool } = require(resolve(root, 'dist/libs/storage/blocks/src/index.js'));
  const { LocalFsBlockStore } = require(resolve(root, 'dist/libs/storage/blocks/src/stores/local-fs-block-store.js'));
  const store = new LocalFsBlockStore({ tier: 'standard', root: resolve(scratch, String(i)) });
  const pool = new BlockBufferPool(BLOCK);
  const buffers = Array.from({ length: 4 }, () => {
    const b = pool.acquire();
    randomBytes(BLOCK).copy(b);
    return b;
  });
  return { root, store, buffers, newBlockId, perMiB: [] };
});
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const arm of round % 2 ? [...arms].reverse() : arms) {
      const before = process.cpuUsage();
      for (let i = 0; i < PER_ROUND; i += 4)
        await Promise.all(arm.buffers.map((b) => arm.store.write(arm.newBlockId(), b)));
      const used = process.cpuUsage(before);
      arm.perMiB.push((used.user + used.system) / 1000 / ((PER_ROUND * BLOCK) / 1048576));
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
for (const arm of arms) {
  const sorted = [...arm.perMiB].sort((a, b) => a - b);
  const median = (sorted[1] + sorted[2]) / 2;
  console.log(
    `${arm.root}: ${median.toFixed(2)} ms CPU per MiB written (median of ${ROUNDS} rounds: ${arm.perMiB.map((x) => x.toFixed(2)).join(', ')}; direct I/O ${arm.store.directIo ?? 'not built'})`,
  );
}
