import { cpus, loadavg, totalmem } from 'os';
import { DirectoryFilter, estimatedFpr, fillRatio, filterElement, shapeFor } from '@ostore/folders/cleanup';

/**
 * The filter's side of the claim: the measured false-positive rate of a DirectoryFilter
 * sized for N directories at rate p, on a synthetic tree of N directories (1,000 top directories,
 * 10 below each, N / 10,000 below those), probed with N directories that are not in it; and its
 * memory next to a hash set (a JavaScript Set) of the same N filter elements, measured as the heap
 * the set adds after a forced GC (node --expose-gc).
 */
export async function main(argv: string[]): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc (the launcher does): the set memory needs a forced GC');
  const n = Number(option(argv, '--directories') ?? 1_000_000);
  const rates = (option(argv, '--fpr') ?? '0.01,0.001').split(',').map(Number);
  const bucket = '3f1e8d52-7c1a-4e0b-9a55-0d9e2c4b7a10';
  const dir = (i: number, leaf: string) => `t${i % 1000}/s${Math.floor(i / 1000) % 10}/${leaf}${Math.floor(i / 10_000)}-${i}/`;
  const rows: string[] = [];
  for (const fpr of rates) {
    const shape = shapeFor(n, fpr);
    for (const salt of [undefined, 1]) {
      const f = DirectoryFilter.create(salt === undefined ? shape : { ...shape, salt });
      let t = process.hrtime.bigint();
      for (let i = 0; i < n; i++) f.addDirectory('object', bucket, dir(i, 'd'));
      const addNs = Number(process.hrtime.bigint() - t);
      let fp = 0;
      t = process.hrtime.bigint();
      for (let i = 0; i < n; i++) if (f.mayContain('object', bucket, dir(i, 'e'))) fp++;
      const testNs = Number(process.hrtime.bigint() - t);
      const measured = fp / n;
      const fill = fillRatio(f.setBits(), shape);
      rows.push(
        `| ${n.toLocaleString('en')} | ${fpr} | ${salt ?? 'none'} | ${shape.bits.toLocaleString('en')} bits, ${shape.hashes} hashes | ${(shape.bits / 8 / 2 ** 20).toFixed(2)} MiB | ${measured.toFixed(5)} | ${(measured / fpr).toFixed(3)} | ${estimatedFpr(fill, shape).toFixed(5)} | ${Math.round(n / (addNs / 1e9)).toLocaleString('en')} | ${Math.round(n / (testNs / 1e9)).toLocaleString('en')} |`,
      );
    }
  }
  gc();
  const before = process.memoryUsage().heapUsed;
  const set = new Set<string>();
  for (let i = 0; i < n; i++) set.add(filterElement('object', bucket, dir(i, 'd')));
  gc();
  const setBytes = process.memoryUsage().heapUsed - before;
  process.stdout.write(
    [
      `machine: ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`,
      '',
      '| directories | configured rate | salt | shape | filter memory | measured rate | measured / configured | estimated from fill | adds/s | tests/s |',
      '| ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rows,
      '',
      `hash set (JavaScript Set) of the same ${n.toLocaleString('en')} elements: ${(setBytes / 2 ** 20).toFixed(1)} MiB of heap (${set.size.toLocaleString('en')} entries, ${(setBytes / n).toFixed(0)} bytes each)`,
      '',
    ].join('\n'),
  );
  return 0;
}

function option(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}
