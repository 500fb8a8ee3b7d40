import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { importCycles, importGraph, ROOT, shown, sourceFiles } from './source-graph';

/** No import cycle between source files of apps/ and libs/ (specs and test support included). */
describe('import cycles', () => {
  it('finds none between source files of apps/ and libs/', () => {
    const cycles = importCycles(importGraph(sourceFiles(['apps', 'libs'])));
    expect(cycles.map((c) => c.map(shown).join(' ⇄ '))).toEqual([]);
  });

  it('resolves imports through the tsconfig path aliases', () => {
    const file = join(ROOT, 'libs/metastore/data-access/src/metastore.ts');
    expect(importGraph(sourceFiles(['libs'])).get(file)).toContain(
      join(ROOT, 'libs/shared/cassandra/src/index.ts'),
    );
  });

  describe(importCycles.name, () => {
    it('reports a two-file cycle through a type-only import and leaves a chain alone', () => {
      const dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
      try {
        const file = (name: string, text: string) => {
          writeFileSync(join(dir, name), text);
          return join(dir, name);
        };
        const a = file('a.ts', "import type { B } from './b';\nexport type A = B;\n");
        const b = file('b.ts', "import { c } from './c';\nexport type B = string;\nexport const x = c;\n");
        const c = file('c.ts', "export * from './a';\nexport const c = 1;\n");
        const d = file('d.ts', "import { c } from './c';\nexport const d = c;\n");
        const sut = importCycles(importGraph([a, b, c, d]));
        expect(sut).toEqual([[a, b, c].sort()]);
        expect(importCycles(importGraph([b, c, d]))).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
