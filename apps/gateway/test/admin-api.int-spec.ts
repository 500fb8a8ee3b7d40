import net from 'net';
import { execFile } from 'child_process';
import { mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import { promisify } from 'util';
import { GatewayUnderTest, startGateway } from '@ostore/testing';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * The admin API on a listener of its own (127.0.0.1, ADMIN_PORT), its token read from a file,
 * `Bearer` only, secrets of new keys validated, and a CLI that says when it cannot reach it.
 */
describe('admin API', () => {
  let gw: GatewayUnderTest;
  let adminUrl: string;
  const token = `file-token-${Math.random().toString(36).slice(2)}-0000`;
  const call = (path: string, init: RequestInit = {}, auth = `Bearer ${token}`) =>
    fetch(`${adminUrl}${path}`, { ...init, headers: { Authorization: auth, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ostore-admin-'));
    writeFileSync(join(dir, 'token'), `${token}\n`);
    const port = await freePort();
    adminUrl = `http://127.0.0.1:${port}`;
    gw = await startGateway('admin', {
      ADMIN_TOKEN: undefined as unknown as string, // from the file instead
      ADMIN_TOKEN_FILE: join(dir, 'token'),
      ADMIN_PORT: String(port),
    });
  });
  afterAll(() => gw?.stop());

  it('answers on its own port with the token from the file, and not on the management port', async () => {
    const res = await call('/admin/users');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: string }[]).map((u) => u.id)).toContain('tester');
    const onManagement = await fetch(`${gw.managementUrl}/admin/users`, { headers: { Authorization: `Bearer ${token}` } });
    await onManagement.text();
    expect(onManagement.status).toBe(404);
    const metrics = await fetch(`${gw.managementUrl}/metrics`);
    await metrics.text();
    expect(metrics.status).toBe(200);
  });

  it('accepts the Bearer scheme only, and no other token', async () => {
    for (const auth of [token, `Basic ${token}`, `Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`, 'Bearer', '']) {
      const res = await call('/admin/users', {}, auth);
      await res.text();
      expect({ auth, status: res.status }).toEqual({ auth, status: 401 });
    }
  });

  it.each([
    ['an empty secret', { accessKeyId: 'AKIAVALIDKEY00000001', secretAccessKey: '' }],
    ['a short secret', { accessKeyId: 'AKIAVALIDKEY00000002', secretAccessKey: 'short' }],
    ['a secret with spaces', { accessKeyId: 'AKIAVALIDKEY00000003', secretAccessKey: 'has spaces in it 0000' }],
    ['a key id without its secret', { accessKeyId: 'AKIAVALIDKEY00000004' }],
    ['a bad key id', { accessKeyId: 'bad/id', secretAccessKey: 'x'.repeat(40) }],
  ])('refuses a new access key with %s (400), and creates none', async (_label, pair) => {
    const res = await call('/admin/users/tester/keys', { method: 'POST', body: JSON.stringify(pair) });
    expect(res.status).toBe(400);
    await res.text();
    const created = await call('/admin/users', { method: 'POST', body: JSON.stringify({ id: `u${pair.accessKeyId.slice(-1)}`, ...pair }) });
    expect(created.status).toBe(400);
    await created.text();
    const keys = (await (await call('/admin/users/tester/keys')).json()) as { accessKeyId: string }[];
    expect(keys.map((k) => k.accessKeyId)).not.toContain(pair.accessKeyId);
  });

  it('the CLI names the address it cannot reach instead of "fetch failed"', async () => {
    const unused = await freePort();
    const failure = (await promisify(execFile)(process.execPath, ['-r', '@swc-node/register', 'apps/gateway/src/cli/admin-cli.ts', 'user', 'list'], {
      cwd: resolve(__dirname, '../../..'),
      env: { ...process.env, OSTORE_ADMIN_URL: `http://127.0.0.1:${unused}`, ADMIN_TOKEN: token },
    }).catch((e: { code: number; stderr: string }) => e)) as { code: number; stderr: string };
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain(`cannot reach the gateway's admin API at http://127.0.0.1:${unused}`);
    expect(failure.stderr).toContain('ECONNREFUSED');
    expect(failure.stderr).not.toMatch(/^admin: fetch failed$/m);
  });
});
