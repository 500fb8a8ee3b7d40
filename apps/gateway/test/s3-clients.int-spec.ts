import { execFile } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { promisify } from 'util';
import { GatewayUnderTest, startGateway } from '@ostore/testing';

const run = promisify(execFile);

/** Smoke tests through the real command-line clients users point at OStore: the aws CLI, rclone and s3cmd. */
describe('real S3 clients', () => {
  let gw: GatewayUnderTest;
  let env: NodeJS.ProcessEnv;
  let dir: string;

  beforeAll(async () => {
    gw = await startGateway('clients');
    dir = mkdtempSync(join(tmpdir(), 'ostore-clients-'));
    env = {
      ...process.env,
      AWS_ACCESS_KEY_ID: gw.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: gw.credentials.secretAccessKey,
      AWS_DEFAULT_REGION: 'us-east-1',
      AWS_CONFIG_FILE: join(dir, 'aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'aws-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
    };
    writeFileSync(join(dir, 'aws-config'), '[default]\ns3 =\n  addressing_style = path\n');
  });
  afterAll(() => gw?.stop());

  const aws = (...args: string[]) => run('aws', ['--endpoint-url', gw.endpoint, ...args], { env, maxBuffer: 16 * 1024 * 1024 });

  it('aws s3 mb / cp / ls / sync / rm and s3api work', async () => {
    await aws('s3', 'mb', 's3://cli-bucket');
    const src = join(dir, 'src');
    mkdirSync(join(src, 'nested'), { recursive: true });
    writeFileSync(join(src, 'a.txt'), 'alpha');
    writeFileSync(join(src, 'nested', 'b.txt'), 'beta');
    const big = Buffer.alloc(9 * 1024 * 1024, 7);
    writeFileSync(join(src, 'big.bin'), big);
    await aws('s3', 'cp', join(src, 'a.txt'), 's3://cli-bucket/single/a.txt');
    await aws('s3', 'sync', src, 's3://cli-bucket/synced');
    const ls = (await aws('s3', 'ls', '--recursive', 's3://cli-bucket')).stdout;
    expect(ls).toContain('single/a.txt');
    expect(ls).toContain('synced/nested/b.txt');
    expect(ls).toContain('synced/big.bin');
    const back = join(dir, 'back');
    await aws('s3', 'sync', 's3://cli-bucket/synced', back);
    expect(readFileSync(join(back, 'nested', 'b.txt'), 'utf8')).toBe('beta');
    expect(readFileSync(join(back, 'big.bin')).equals(big)).toBe(true);
    const head = JSON.parse((await aws('s3api', 'head-object', '--bucket', 'cli-bucket', '--key', 'synced/big.bin')).stdout);
    expect(head.ContentLength).toBe(big.length);
    await aws('s3', 'rm', '--recursive', 's3://cli-bucket/synced');
    const after = (await aws('s3', 'ls', '--recursive', 's3://cli-bucket')).stdout;
    expect(after).not.toContain('synced/');
    expect(after).toContain('single/a.txt');
  });

  it('rclone copies a tree up and back', async () => {
    const conf = join(dir, 'rclone.conf');
    writeFileSync(
      conf,
      `[ostore]\ntype = s3\nprovider = Other\naccess_key_id = ${gw.credentials.accessKeyId}\nsecret_access_key = ${gw.credentials.secretAccessKey}\nendpoint = ${gw.endpoint}\nregion = us-east-1\nforce_path_style = true\n`,
    );
    // rclone's AWS SDK refuses AWS_CA_BUNDLE together with its own HTTP transport; plain HTTP needs no CA anyway.
    const rcloneEnv = { ...env };
    delete rcloneEnv.AWS_CA_BUNDLE;
    const rclone = (...args: string[]) => run('rclone', ['--config', conf, ...args], { env: rcloneEnv });
    const src = join(dir, 'rsrc');
    mkdirSync(join(src, 'd'), { recursive: true });
    writeFileSync(join(src, 'd', 'x.txt'), 'from rclone');
    await rclone('mkdir', 'ostore:rclone-bucket');
    await rclone('copy', src, 'ostore:rclone-bucket/tree');
    const listed = (await rclone('lsf', '-R', 'ostore:rclone-bucket')).stdout;
    expect(listed).toContain('tree/d/x.txt');
    const dst = join(dir, 'rdst');
    await rclone('copy', 'ostore:rclone-bucket/tree', dst);
    expect(readFileSync(join(dst, 'd', 'x.txt'), 'utf8')).toBe('from rclone');
    await rclone('check', src, 'ostore:rclone-bucket/tree');
  });

  it('s3cmd puts (multipart too), lists, syncs, copies, gets and removes', async () => {
    const conf = join(dir, 's3cfg');
    const host = gw.endpoint.replace('http://', '');
    // host_bucket without %(bucket)s: path-style requests, as for a gateway without wildcard DNS
    writeFileSync(
      conf,
      `[default]\naccess_key = ${gw.credentials.accessKeyId}\nsecret_key = ${gw.credentials.secretAccessKey}\nhost_base = ${host}\nhost_bucket = ${host}\nuse_https = False\nsignature_v2 = False\nbucket_location = us-east-1\n`,
    );
    const s3cmd = async (...args: string[]) => (await run('s3cmd', ['-c', conf, '--no-progress', ...args], { env, maxBuffer: 16 * 1024 * 1024 })).stdout;
    const src = join(dir, 'ssrc');
    mkdirSync(join(src, 'sub'), { recursive: true });
    writeFileSync(join(src, 'one.txt'), 'one');
    writeFileSync(join(src, 'sub', 'two.txt'), 'two');
    const big = Buffer.alloc(12 * 1024 * 1024 + 5, 3);
    writeFileSync(join(dir, 'big.bin'), big);
    await s3cmd('mb', 's3://s3cmd-bucket');
    await s3cmd('put', '--mime-type=text/plain', join(src, 'one.txt'), 's3://s3cmd-bucket/single/one.txt');
    // three parts of 5 MiB, 5 MiB and 2 MiB + 5 bytes
    await s3cmd('put', '--multipart-chunk-size-mb=5', join(dir, 'big.bin'), 's3://s3cmd-bucket/big.bin');
    const info = await s3cmd('info', 's3://s3cmd-bucket/single/one.txt');
    expect(info).toMatch(/File size:\s+3\b/);
    expect(info).toMatch(/MIME type:\s+text\/plain/);
    const head = JSON.parse((await aws('s3api', 'head-object', '--bucket', 's3cmd-bucket', '--key', 'big.bin')).stdout);
    expect([head.ContentLength, head.ETag]).toEqual([big.length, expect.stringMatching(/-3"$/)]);
    await s3cmd('sync', `${src}/`, 's3://s3cmd-bucket/tree/');
    writeFileSync(join(src, 'one.txt'), 'changed');
    // sync --delete-removed after a local delete: the remote copy goes too
    rmSync(join(src, 'sub', 'two.txt'));
    await s3cmd('sync', '--delete-removed', `${src}/`, 's3://s3cmd-bucket/tree/');
    await s3cmd('cp', 's3://s3cmd-bucket/tree/one.txt', 's3://s3cmd-bucket/copied/one.txt');
    const listed = await s3cmd('ls', '-r', 's3://s3cmd-bucket');
    expect(listed).toContain('s3://s3cmd-bucket/tree/one.txt');
    expect(listed).toContain('s3://s3cmd-bucket/copied/one.txt');
    expect(listed).not.toContain('tree/sub/two.txt');
    const got = join(dir, 'big.back');
    await s3cmd('get', 's3://s3cmd-bucket/big.bin', got);
    expect(readFileSync(got).equals(big)).toBe(true);
    await s3cmd('get', 's3://s3cmd-bucket/copied/one.txt', join(dir, 'one.back'));
    expect(readFileSync(join(dir, 'one.back'), 'utf8')).toBe('changed');
    await s3cmd('del', '--recursive', '--force', 's3://s3cmd-bucket');
    await s3cmd('rb', 's3://s3cmd-bucket');
    expect(await s3cmd('ls')).not.toContain('s3cmd-bucket');
  });
});
