#!/usr/bin/env node
// Compiles the apps and libs to plain CommonJS in dist/ (same layout as the sources), so that
// production images and benchmarks run `node dist/apps/<app>/src/main.js` without the runtime
// TypeScript compiler (@swc-node/register costs ~80 MB RSS per process and start-up time).
//
//   npm run build                 # everything under apps/ and libs/ except tests
//   node tools/build/build.mjs --check   # exit 1 when dist/ is older than a source file
//
// The tsconfig path aliases (@ostore/...) are rewritten to relative paths at compile time by
// swc (jsc.baseUrl + jsc.paths); dist/ mirrors the source tree, so those paths stay valid.
// Type checking is `npm run typecheck`'s job, not this script's.
import { transformFile } from '@swc/core';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = join(ROOT, 'dist');
const SOURCE_DIRS = ['apps', 'libs'];
const SKIP = /(\.spec|\.int-spec|\.cluster-spec|\.wide-spec|\.spec-helper|\.d)\.ts$/;

async function sources(dir) {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (['test', 'node_modules', '__fixtures__', 'spec-support'].includes(entry.name)) continue;
      found.push(...(await sources(path)));
    } else if (entry.name.endsWith('.ts') && !SKIP.test(entry.name)) {
      found.push(path);
    }
  }
  return found;
}

async function swcOptions() {
  const tsconfig = JSON.parse(await readFile(join(ROOT, 'tsconfig.base.json'), 'utf8'));
  return {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
      baseUrl: ROOT,
      paths: tsconfig.compilerOptions.paths,
    },
    module: { type: 'commonjs' },
    sourceMaps: true,
    swcrc: false,
  };
}

async function newest(files) {
  let t = 0;
  for (const f of files) t = Math.max(t, (await stat(f)).mtimeMs);
  return t;
}

async function main() {
  const check = process.argv.includes('--check');
  const files = (await Promise.all(SOURCE_DIRS.map((d) => sources(join(ROOT, d))))).flat();
  if (check) {
    const stamp = await stat(join(OUT, '.built')).catch(() => undefined);
    const stale = !stamp || (await newest(files)) > stamp.mtimeMs;
    console.log(stale ? 'dist/ is missing or older than the sources: run `npm run build`' : 'dist/ is up to date');
    process.exit(stale ? 1 : 0);
  }
  const started = Date.now();
  await rm(OUT, { recursive: true, force: true });
  const options = await swcOptions();
  let done = 0;
  const queue = [...files];
  async function worker() {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const rel = relative(ROOT, file);
      const target = join(OUT, rel.replace(/\.ts$/, '.js'));
      const { code, map } = await transformFile(file, { ...options, filename: file, outputPath: target, sourceFileName: relative(dirname(target), file) });
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, `${code}\n//# sourceMappingURL=${target.split('/').pop()}.map\n`);
      if (map) await writeFile(`${target}.map`, map);
      done++;
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker));
  await writeFile(join(OUT, '.built'), new Date().toISOString() + '\n');
  console.log(`[build] ${done} files → dist/ in ${((Date.now() - started) / 1000).toFixed(1)}s`);
}

main().catch((err) => {
  console.error(`[build] failed: ${err.message}`);
  process.exit(1);
});
