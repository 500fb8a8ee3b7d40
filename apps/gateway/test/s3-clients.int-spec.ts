import { execFile } from 'child_process';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { promisify } from 'util';
import { GatewayUnderTest, startGateway } from '@ostore/testing';

const run = promisify(execFile);

/** Smoke tests through the real command-line clients users point at OStore: the aws CLI and rclone. */
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
});
