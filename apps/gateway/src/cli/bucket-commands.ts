import { formatBytes, parseSize } from './sizes';

/** One admin API call of a `bucket` command, how to show its answer, or a help text to print. */
export interface BucketCommand {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
  /** Turns the JSON answer into what is printed. */
  render: (answer: unknown) => string;
}

export const BUCKET_USAGE = `bucket commands:
  bucket list [--json]                       every bucket: name, owner, created, usage, quota
  bucket usage <bucket> [--json]             bytes, objects, quota utilisation, as of when
  bucket quota set <bucket> [--max-bytes N|SIZE] [--max-objects N] [--json]
                                             set limits (SIZE: 10MiB, 10MB, 1G, ...; 0 allows nothing;
                                             "none" clears one limit); a new quota recounts the bucket
  bucket quota clear <bucket> [--json]       remove both limits
  bucket quota recount <bucket> [--json]     re-base the live quota ledger to an exact recount
Sizes print in binary units (10 MiB). --json prints the API's answer for scripts.`;

/** The admin API's answer about one bucket's usage (GET /admin/buckets/:name/usage and the quota calls), as JSON. */
export interface UsageView {
  bucket: string;
  bytes: number;
  objects: number;
  source: 'ledger' | 'recount' | 'stats';
  asOf: string;
  snapshotCut?: string;
  snapshotAgeSeconds?: number;
  /** Why the stats app could not answer (the figures are then a recount). */
  statsError?: string;
  quota?: { maxBytes?: number; maxObjects?: number };
  utilisation?: { bytes?: number; objects?: number };
  drift?: { bytes: number; objects: number };
}

interface Summary {
  name: string;
  owner: string;
  createdAt: string;
  quota?: { maxBytes?: number; maxObjects?: number };
  usage?: { bytes: number; objects: number };
  usageSource?: 'ledger' | 'stats';
}

const percent = (ratio: number | null | undefined) => (ratio === undefined ? '' : ratio === null ? '∞ %' : `${(ratio * 100).toFixed(1)} %`);

/** A text table: a header row, then rows, columns padded to their widest cell. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

const quotaText = (q: Summary['quota']) =>
  q ? [q.maxBytes === undefined ? '' : formatBytes(q.maxBytes), q.maxObjects === undefined ? '' : `${q.maxObjects} objects`].filter(Boolean).join(', ') : '-';

function renderList(answer: unknown): string {
  const rows = (answer as Summary[]).map((b) => [
    b.name,
    b.owner,
    b.createdAt.slice(0, 19).replace('T', ' '),
    b.usage ? formatBytes(b.usage.bytes) : '-',
    b.usage ? String(b.usage.objects) : '-',
    quotaText(b.quota),
  ]);
  if (rows.length === 0) return 'no buckets';
  return `${table(['NAME', 'OWNER', 'CREATED (UTC)', 'USED', 'OBJECTS', 'QUOTA'], rows)}\n(usage: quota buckets from the live ledger, others from the stats app when the gateway has ADMIN_STATS_URL; \`bucket usage <bucket>\` answers for any bucket)`;
}

function renderUsage(answer: unknown): string {
  const u = answer as UsageView;
  const rows: string[][] = [
    ['bucket', u.bucket],
    ['bytes', `${formatBytes(u.bytes)} (${u.bytes} bytes)`],
    ['objects', String(u.objects)],
  ];
  if (u.quota?.maxBytes !== undefined) rows.push(['byte quota', `${formatBytes(u.quota.maxBytes)}, ${percent(u.utilisation?.bytes)} used`]);
  if (u.quota?.maxObjects !== undefined) rows.push(['object quota', `${u.quota.maxObjects} objects, ${percent(u.utilisation?.objects)} used`]);
  if (!u.quota) rows.push(['quota', 'none']);
  const from = { ledger: 'live quota ledger', recount: 'exact recount of the metastore', stats: 'stats app: scan snapshot + usage deltas since its cut' };
  rows.push(['as of', `${u.asOf} (${from[u.source]})`]);
  if (u.source === 'stats') rows.push(['snapshot', u.snapshotCut ? `cut ${u.snapshotCut}, ${u.snapshotAgeSeconds ?? '?'} s old` : 'none yet (usage deltas alone)']);
  if (u.statsError) rows.push(['stats app', `not answering (${u.statsError})`]);
  if (u.drift) rows.push(['ledger drift', `${u.drift.bytes} bytes, ${u.drift.objects} objects (corrected)`]);
  return table(['', ''], rows).split('\n').slice(1).join('\n');
}

/** A limit given on the command line: a size (or count), or `none` to clear it. */
function limitArg(value: string, kind: 'size' | 'count'): number | null {
  if (value.toLowerCase() === 'none') return null;
  if (kind === 'size') return parseSize(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new Error(`--max-objects needs a whole number (got "${value}")`);
  return Number(value);
}

/**
 * Parses the arguments after `bucket`; returns the call, or a help text (for `--help`). Throws
 * with a precise message on bad input.
 */
export function parseBucketArgs(argv: string[]): BucketCommand | { help: string } {
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') return { help: BUCKET_USAGE };
    if (a === '--json') json = true;
    else if (a === '--max-bytes' || a === '--max-objects') {
      const value = argv[++i];
      if (value === undefined || value.startsWith('--')) throw new Error(`option ${a} needs a value`);
      flags[a.slice(2)] = value;
    } else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else positional.push(a);
  }
  const show = (render: (a: unknown) => string) => (json ? (a: unknown) => JSON.stringify(a, null, 2) : render);
  const [verb, ...rest] = positional;
  const sub = verb === 'quota' ? rest.shift() : undefined;
  const command = sub ? `${verb} ${sub}` : (verb ?? '');
  const [name, ...extra] = rest;
  if (extra.length) throw new Error(`unexpected argument "${extra[0]}"`);
  if (Object.keys(flags).length > 0 && command !== 'quota set') throw new Error(`--max-bytes and --max-objects belong to "bucket quota set"`);
  const bucket = () => {
    if (!name) throw new Error(`bucket ${command} needs <bucket>`);
    return encodeURIComponent(name);
  };
  switch (command) {
    case 'list':
      if (name) throw new Error(`unexpected argument "${name}"`);
      return { method: 'GET', path: '/admin/buckets', render: show(renderList) };
    case 'usage':
      return { method: 'GET', path: `/admin/buckets/${bucket()}/usage`, render: show(renderUsage) };
    case 'quota set': {
      const path = `/admin/buckets/${bucket()}/quota`;
      if (flags['max-bytes'] === undefined && flags['max-objects'] === undefined) throw new Error('bucket quota set needs --max-bytes and/or --max-objects');
      const body: Record<string, unknown> = {};
      if (flags['max-bytes'] !== undefined) body['maxBytes'] = limitArg(flags['max-bytes'], 'size');
      if (flags['max-objects'] !== undefined) body['maxObjects'] = limitArg(flags['max-objects'], 'count');
      return { method: 'PUT', path, body, render: show(renderUsage) };
    }
    case 'quota clear':
      return { method: 'DELETE', path: `/admin/buckets/${bucket()}/quota`, render: show(renderUsage) };
    case 'quota recount':
      return { method: 'POST', path: `/admin/buckets/${bucket()}/quota/recount`, render: show(renderUsage) };
    default:
      throw new Error(command ? `unknown command "bucket ${positional.join(' ')}"` : 'bucket needs a command');
  }
}
