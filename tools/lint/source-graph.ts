import { readdirSync, readFileSync } from 'fs';
import { join, relative, resolve } from 'path';
import * as ts from 'typescript';

/** The repository root. */
export const ROOT = resolve(__dirname, '../..');

/** Every TypeScript file under `dirs` (relative to the root), node_modules and build output left out. */
export function sourceFiles(dirs: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
    }
  };
  for (const d of dirs) walk(join(ROOT, d));
  return out.sort();
}

/** The compiler options of tsconfig.base.json (path aliases included), as the compiler reads them. */
function compilerOptions(): ts.CompilerOptions {
  const path = join(ROOT, 'tsconfig.base.json');
  const { config, error } = ts.readConfigFile(path, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(config, ts.sys, ROOT, undefined, path).options;
}

/**
 * The import graph of `files`: for each file, the files among them it imports, re-exports from or
 * requires (type-only imports included: they tie the two modules together just the same), with
 * specifiers resolved as the compiler does, through the tsconfig path aliases.
 */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const options = compilerOptions();
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const ref of info.importedFiles) {
      const resolved = ts.resolveModuleName(ref.fileName, file, options, ts.sys).resolvedModule
        ?.resolvedFileName;
      if (resolved && known.has(resolve(resolved))) targets.add(resolve(resolved));
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/**
 * The import cycles of a graph: its strongly connected components of more than one file, and
 * files that import themselves (Tarjan's algorithm, iterative so deep graphs cannot overflow).
 */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++];
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || (graph.get(frame.node) ?? []).includes(frame.node))
          cycles.push(component.sort());
      }
    }
  }
  return cycles;
}

/** A path relative to the root, for messages. */
export function shown(path: string): string {
  return relative(ROOT, path);
}
