import net from 'net';
import { execFile } from 'child_process';
import { resolve } from 'path';
import { promisify } from 'util';
import { FolderFilterRepository } from '@ostore/metastore/data-access';
import { CassandraClient } from '@ostore/shared/cassandra';
import { cassandraOptions, GatewayUnderTest, startGateway } from '@ostore/testing';

/**
 * The operator's view of the empty-directory cleanup: `GET /admin/folders/status` and
 * `npm run admin -- folders status` over what the scanners stored (generations, builds, passes).
 */
describe('admin API: folders status', () => {
  let gw: GatewayUnderTest;
  let db: CassandraClient;
  let adminUrl: string;
  const cli = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['-r', '@swc-node/register', 'apps/gateway/src/cli/admin-cli.ts', 'folders', ...args], {
      cwd: resolve(__dirname, '../../..'),
      env: { ...process.env, OSTORE_ADMIN_URL: adminUrl, ADMIN_TOKEN: gw.adminToken },
    }).catch((e: { code: number; stdout: string; stderr: string }) => e);

  beforeAll(async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise((r) => server.close(r));
    adminUrl = `http://127.0.0.1:${port}`;
    gw = await startGateway('folderadmin', { ADMIN_PORT: String(port) });
    db = new CassandraClient(cassandraOptions(gw.keyspace));
    await db.connect();
    const repo = new FolderFilterRepository(db);
    const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 10, 0, s));
    for (const generation of [1, 2]) await repo.openGeneration({ generation, shape: { bits: 9600, hashes: 7 }, capacity: 1000, fpr: 0.001, createdAt: at(generation) });
    await repo.saveHost({ generation: 2, source: 'node-a', complete: true, chunks: 1, keys: 42, setBits: 60, startedAt: at(3), completedAt: at(4) });
    await repo.saveHost({ generation: 2, source: 'node-b', complete: false, chunks: 0, keys: 0, setBits: 0, startedAt: at(3) });
    const byKind = { object: { checked: 7, foundEmpty: 3, published: 2 }, version: { checked: 5, foundEmpty: 1, published: 1 }, upload: { checked: 0, foundEmpty: 0, published: 0 } };
    await repo.savePass({ generation: 2, source: 'node-a', stat: { checked: 12, foundEmpty: 4, published: 3, byKind }, finishedAt: at(5) });
    await repo.savePass({ generation: 1, source: 'node-a', stat: { checked: 0, foundEmpty: 0, published: 0, skipped: 'stale' }, finishedAt: at(2) });
  });
  afterAll(async () => {
    await db?.shutdown();
    await gw?.stop();
  });

  it('answers the newest generations with every scanner build and pass, per queue', async () => {
    const res = await fetch(`${adminUrl}/admin/folders/status?generations=5`, { headers: { Authorization: `Bearer ${gw.adminToken}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { generations: { generation: number; hosts: { source: string; built: boolean; pass?: { checked: number; skipped?: string } }[] }[] };
    expect(body.generations.map((g) => g.generation)).toEqual([2, 1]);
    expect(body.generations[0].hosts).toEqual([
      expect.objectContaining({ source: 'node-a', built: true, keys: 42, builtAt: '2026-12-01T10:00:04.000Z', pass: expect.objectContaining({ checked: 12, foundEmpty: 4, published: 3 }) }),
      { source: 'node-b', built: false, keys: 0 }, // no pass yet
    ]);
    expect(body.generations[1].hosts[0].pass?.skipped).toBe('stale');
    const bad = await fetch(`${adminUrl}/admin/folders/status?generations=0`, { headers: { Authorization: `Bearer ${gw.adminToken}` } });
    expect(bad.status).toBe(400);
    await bad.text();
    const anonymous = await fetch(`${adminUrl}/admin/folders/status`);
    expect(anonymous.status).toBe(401);
    await anonymous.text();
  });

  it('the CLI prints a table by default, JSON with --json, and its usage with --help', async () => {
    // one process each, at once (every run starts node with swc)
    const [table, json, help, wrong] = (await Promise.all([cli('status'), cli('status', '--json', '--generations', '1'), cli('--help'), cli('purge')])) as {
      code?: number;
      stdout: string;
      stderr: string;
    }[];
    const lines = table.stdout.split('\n');
    expect(lines[0]).toMatch(/^GENERATION\s+OPENED\s+SCANNER\s+QUEUE\s+FILTER\s+CHECKED\s+FOUND EMPTY\s+PUBLISHED\s+PASS$/);
    expect(table.stdout).toMatch(/^2 +2026-12-01T10:00:02.000Z +node-a +all +built 42 keys +12 +4 +3 +done 2026-12-01T10:00:05.000Z$/m);
    expect(table.stdout).toMatch(/^ +object-folders +7 +3 +2$/m);
    expect(table.stdout).toMatch(/^2 .* node-b +all +building +not yet$/m);
    expect(table.stdout).toMatch(/^1 .* node-a .* skipped: stale$/m);
    expect((JSON.parse(json.stdout) as { generations: unknown[] }).generations).toHaveLength(1);
    expect(help.stdout).toContain('folders status [--generations N] [--json]');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('unknown command "folders purge"');
  }, 240_000);
});
