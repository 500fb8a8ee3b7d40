import { resolve } from 'path';
import { S3Client } from '@aws-sdk/client-s3';
import { AppProcess } from './app-process';
import { appEnv, freshCluster, freshKeyspace, GiveUpWaiting, waitFor } from './stack-env';

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface GatewayUnderTest {
  endpoint: string;
  managementUrl: string;
  /** The admin API's own listener (ADMIN_PORT, on 127.0.0.1). */
  adminUrl: string;
  adminToken: string;
  keyspace: string;
  /** Where this gateway's filesystem block store keeps its blocks (in the test run's stack dir). */
  blockDir: string;
  credentials: Credentials;
  process: AppProcess;
  /** An AWS SDK v3 client with default settings (checksums, aws-chunked trailers) for the bootstrap user. */
  client(credentials?: Credentials, options?: { forcePathStyle?: boolean }): S3Client;
  stop(): Promise<void>;
  /** Starts the same gateway again (after a kill), on the same ports and keyspace; `changes` overrides its environment from then on. */
  restart(changes?: Record<string, string>): Promise<void>;
}

let nextPort = 21000 + Math.floor(Math.random() * 2000) * 4;

/**
 * Starts a real gateway process on a fresh keyspace and free ports, with a bootstrap user, and
 * waits until it is ready. Extra environment (e.g. BLOCK_SIZE_BYTES) may be passed.
 */
export async function startGateway(label: string, extraEnv: Record<string, string> = {}): Promise<GatewayUnderTest> {
  const keyspace = freshKeyspace(label);
  const s3Port = nextPort++;
  const managementPort = nextPort++;
  const adminPort = nextPort++;
  const adminToken = `admin-token-${keyspace}`;
  const credentials = { accessKeyId: `AKIATEST${Math.random().toString(36).slice(2, 14).toUpperCase()}`, secretAccessKey: `secret-${keyspace}-0000000000` };
  const env: Record<string, string> = {
    ...appEnv(keyspace, freshCluster(label)),
    S3_PORT: String(s3Port),
    S3_HOST: '127.0.0.1',
    MANAGEMENT_PORT: String(managementPort),
    MANAGEMENT_HOST: '127.0.0.1',
    ADMIN_PORT: String(adminPort),
    ADMIN_TOKEN: adminToken,
    S3_BOOTSTRAP_USER: 'tester',
    S3_BOOTSTRAP_ACCESS_KEY_ID: credentials.accessKeyId,
    S3_BOOTSTRAP_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const managementUrl = `http://127.0.0.1:${managementPort}`;
  // a gateway that never gets ready is stopped before the error propagates: no spec can stop it
  const ready = async (p: AppProcess) => {
    try {
      await waitFor(
        'gateway ready',
        async () => {
          if (p.exitCode !== undefined) throw new GiveUpWaiting(`gateway exited (${p.exitCode}):\n${p.output.join('')}`);
          const res = await fetch(`${managementUrl}/health/ready`);
          await res.text();
          return res.status === 200 ? true : undefined;
        },
        // a loaded machine applies the migrations slowly; OSTORE_TEST_GATEWAY_READY_MS overrides
        Number(process.env['OSTORE_TEST_GATEWAY_READY_MS'] ?? 240000),
      );
    } catch (e) {
      await p.stop();
      throw e;
    }
  };
  const gw: GatewayUnderTest = {
    endpoint: `http://127.0.0.1:${s3Port}`,
    managementUrl,
    adminUrl: `http://127.0.0.1:${env.ADMIN_PORT}`,
    adminToken,
    keyspace,
    blockDir: resolve(__dirname, '../..', env.BLOCK_STORE_DIR),
    credentials,
    process: new AppProcess('gateway', env).start(),
    client(creds = credentials, options = {}) {
      return new S3Client({ endpoint: gw.endpoint, region: 'us-east-1', credentials: creds, forcePathStyle: options.forcePathStyle ?? true });
    },
    async stop() {
      await gw.process.stop();
    },
    async restart(changes = {}) {
      Object.assign(env, changes);
      await gw.process.stop();
      gw.process = new AppProcess('gateway', env).start();
      await ready(gw.process);
    },
  };
  await ready(gw.process);
  return gw;
}
