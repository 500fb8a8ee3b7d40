import type { BucketReport } from '../admin/bucket-report.controller';
import { table } from './bucket-commands';
import { formatBytes } from './sizes';

export const BUCKET_REPORT_HELP = `usage: bucket report <bucket> [--json]

The bucket in the newest combined scan snapshot: bytes per storage class, objects, versions,
delete markers, incomplete uploads, the top objects by size and by versions, the top directories
by entries, the most-referenced blocks (all their references, those of this bucket, their size
and how many buckets share them), and the anomaly counters. The snapshot counts what was written before its cut; the
stats app adds the usage deltas after the cut for the current usage.

  --json   the admin API's answer as JSON (for scripts)
  --help   this text`;

/** One parsed `bucket report` invocation: the admin API path and how to print its answer, or help. */
export type BucketReportCommand = { help: string } | { path: string; json: boolean };

/** Parses `bucket report ...`; undefined when the arguments are another command. */
export function parseBucketReport(argv: readonly string[]): BucketReportCommand | undefined {
  if (argv[0] !== 'bucket' || argv[1] !== 'report') return undefined;
  const rest = argv.slice(2);
  if (rest.includes('--help') || rest.includes('-h')) return { help: BUCKET_REPORT_HELP };
  const json = rest.includes('--json');
  const unknown = rest.find((a) => a.startsWith('-') && a !== '--json');
  if (unknown) throw new Error(`unknown option ${unknown} (bucket report <bucket> [--json])`);
  const names = rest.filter((a) => !a.startsWith('-'));
  if (names.length === 0) throw new Error('bucket report needs <bucket>');
  if (names.length > 1) throw new Error(`unexpected argument "${names[1]}"`);
  return { path: `/admin/buckets/${encodeURIComponent(names[0])}/report`, json };
}

/** The report as a human-readable text (tables; sizes in KiB, MiB, ...). */
export function renderBucketReport(r: BucketReport): string {
  if (!r.snapshot || !r.figures) return `${r.bucket}: no combined snapshot yet (the scanners have not completed a pass, or the stats app has not combined it)\n`;
  const f = r.figures;
  const out: string[] = [];
  out.push(`bucket ${r.bucket} (${r.bucketId})`);
  out.push(`snapshot cut ${r.snapshot.cut}, combined ${r.snapshot.combinedAt} from ${r.snapshot.hostSnapshots} host snapshots, ${r.snapshot.ageSeconds} s old`);
  out.push('');
  out.push(
    table(
      ['bytes', 'objects', 'versions', 'delete markers', 'uploads', 'upload bytes'],
      [[formatBytes(f.bytes), String(f.objects), String(f.versions), String(f.deleteMarkers), String(f.uploads), formatBytes(f.uploadBytes)]],
    ),
  );
  const classes = Object.entries(f.classes).sort(([a], [b]) => (a < b ? -1 : 1));
  if (classes.length) {
    out.push('');
    out.push(table(['storage class', 'current', 'noncurrent'], classes.map(([c, b]) => [c, formatBytes(b.current), formatBytes(b.noncurrent)])));
  }
  const top = (title: string, unit: string, rows: { name: string; n: number }[], fmt: (n: number) => string) => {
    if (!rows.length) return;
    out.push('');
    out.push(table([title, unit], rows.map((e) => [e.name === '' ? '/' : e.name, fmt(e.n)])));
  };
  top('largest objects', 'size', f.topBySize, formatBytes);
  top('objects with most versions', 'versions', f.topByVersions, String);
  top('largest directories', 'entries', f.topDirectories, String);
  const blocks = f.topBlocks ?? [];
  if (blocks.length) {
    out.push('');
    out.push(
      table(
        ['most-referenced blocks', 'references', 'in this bucket', 'size', 'buckets'],
        blocks.map((b) => [b.name, String(b.n), String(b.buckets[r.bucketId] ?? 0), formatBytes(b.size), String(Object.keys(b.buckets).length)]),
      ),
    );
  }
  out.push('');
  out.push(
    table(
      ['anomaly', 'count'],
      [
        ['overdue versions', String(f.anomalies.overdueVersions)],
        ['objects over 100 versions', String(f.anomalies.objectsOver100Versions)],
        ['directories over 100,000 entries', String(f.anomalies.directoriesOver100k)],
      ],
    ),
  );
  return `${out.join('\n')}\n`;
}
