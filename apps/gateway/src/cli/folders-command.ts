import type { FolderCleanupStatus } from '../admin/folder-cleanup.controller';
import { table } from './bucket-commands';

/** Usage of `npm run admin -- folders ...`. */
export const FOLDERS_USAGE = `usage:
  folders status [--generations N] [--json]   the empty-directory cleanup: per generation, each scanner's
                                              filter build and folder scan (checked, found empty,
                                              published, per queue) or why it skipped
  folders --help`;

/** What `folders ...` asks for. */
export type FoldersCommand = { kind: 'help' } | { kind: 'status'; path: string; json: boolean };

/** Parses the arguments after `folders`, or throws with a precise message. */
export function parseFoldersArgs(argv: string[]): FoldersCommand {
  if (argv.includes('--help') || argv.includes('-h')) return { kind: 'help' };
  const [verb, ...rest] = argv;
  if (verb !== 'status') throw new Error(verb ? `unknown command "folders ${verb}"` : 'folders needs a command (status)');
  let json = false;
  let generations = 3;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === '--json') json = true;
    else if (a === '--generations') {
      const v = Number(rest[++i]);
      if (!Number.isInteger(v) || v < 1 || v > 100) throw new Error('--generations needs an integer from 1 to 100');
      generations = v;
    } else throw new Error(a.startsWith('--') ? `unknown option ${a}` : `unexpected argument "${a}"`);
  }
  return { kind: 'status', path: `/admin/folders/status?generations=${generations}`, json };
}

/** The status as a table: one line per scanner and generation, then one per folder queue. */
export function renderFoldersStatus(status: FolderCleanupStatus): string {
  if (status.generations.length === 0) return 'no filter generation yet (no scanner has run the empty-directory cleanup)\n';
  const rows: string[][] = [['GENERATION', 'OPENED', 'SCANNER', 'QUEUE', 'FILTER', 'CHECKED', 'FOUND EMPTY', 'PUBLISHED', 'PASS']];
  for (const g of status.generations) {
    if (g.hosts.length === 0) rows.push([String(g.generation), g.openedAt, '-', '-', 'not built', '', '', '', '']);
    for (const h of g.hosts) {
      const filter = h.built ? `built ${h.keys} keys` : 'building';
      const p = h.pass;
      const pass = !p ? 'not yet' : p.skipped ? `skipped: ${p.skipped}` : `done ${p.finishedAt}`;
      rows.push([String(g.generation), g.openedAt, h.source, 'all', filter, num(p?.checked), num(p?.foundEmpty), num(p?.published), pass]);
      for (const [kind, k] of Object.entries(p?.byKind ?? {}))
        rows.push(['', '', '', `${kind}-folders`, '', num(k?.checked), num(k?.foundEmpty), num(k?.published), '']);
    }
  }
  return `${table(rows[0], rows.slice(1))}\ndeleted and skipped-as-not-empty directories: the schedulers' ostore_folder_cleanup_directories_{deleted,skipped}_total\n`;
}

const num = (n: number | undefined) => (n === undefined ? '' : String(n));

/** Where `folders ...` calls and writes; `unreachable` says in words why a fetch failed. */
export interface FoldersIo {
  config: { url: string; token: string };
  unreachable(url: string, error: unknown): string;
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
}

/** `npm run admin -- folders ...`: the exit code (2 on bad arguments, 1 when the admin API fails). */
export async function foldersMain(argv: string[], io: FoldersIo): Promise<number> {
  const { config, out, err, unreachable } = io;
  let command: FoldersCommand;
  try {
    command = parseFoldersArgs(argv);
  } catch (e) {
    err.write(`admin: ${(e as Error).message}\n${FOLDERS_USAGE}\n`);
    return 2;
  }
  if (command.kind === 'help') {
    out.write(`${FOLDERS_USAGE}\n`);
    return 0;
  }
  let res: Response;
  try {
    res = await fetch(`${config.url}${command.path}`, { headers: { Authorization: `Bearer ${config.token}` } });
  } catch (e) {
    err.write(`admin: ${unreachable(config.url, e)}\n`);
    return 1;
  }
  const text = await res.text();
  if (!res.ok) {
    err.write(`admin: ${res.status} ${text}\n`);
    return 1;
  }
  const status = JSON.parse(text) as FolderCleanupStatus;
  out.write(command.json ? `${JSON.stringify(status, null, 2)}\n` : renderFoldersStatus(status));
  return 0;
}
