import { createHash, randomBytes } from 'crypto';
import { readdir, readFile } from 'fs/promises';
import { join } from 'path';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { CassandraClient } from '@ostore/shared/cassandra';
import { cassandraOptions, startGateway } from '@ostore/testing';

/** A fresh 32-byte master key entry for S3_SSE_MASTER_KEYS (`<id>=<base64>`). */
export const masterKeyEntry = (id: string) => `${id}=${randomBytes(32).toString('base64')}`;

/** A fresh SSE-C customer key, as the SDK's SSECustomer* parameters. */
export const customer = () => {
  const key = randomBytes(32);
  return { SSECustomerAlgorithm: 'AES256', SSECustomerKey: key.toString('base64'), SSECustomerKeyMD5: createHash('md5').update(key).digest('base64') };
};

/** The same key as the SDK's CopySourceSSECustomer* parameters. */
export const copySource = (c: ReturnType<typeof customer>) => ({
  CopySourceSSECustomerAlgorithm: c.SSECustomerAlgorithm,
  CopySourceSSECustomerKey: c.SSECustomerKey,
  CopySourceSSECustomerKeyMD5: c.SSECustomerKeyMD5,
});

/** A body whose plaintext is easy to find: a marker repeated, with the position mixed in. */
export const markedBody = (bytes: number, marker: string) => {
  const b = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i += 64) b.write(`${marker}:${String(i).padStart(12, '0')}|`.padEnd(64, '.'), i);
  return b;
};

/** Every block file's bytes under the gateway's block store. */
export async function blockFiles(dir: string): Promise<{ path: string; bytes: Buffer }[]> {
  const out: { path: string; bytes: Buffer }[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.push({ path: p, bytes: await readFile(p) });
    }
  };
  await walk(dir);
  return out;
}

/** A gateway with SSE on (`env`), its client, a metastore session to read stored rows, and one bucket; `stop` ends both. */
export async function startSseGateway(name: string, bucket: string, env: Record<string, string>) {
  const gw = await startGateway(name, { S3_SSE_C_ALLOW_HTTP: 'true', ...env });
  const db = new CassandraClient(cassandraOptions(gw.keyspace));
  await db.connect();
  await gw.client().send(new CreateBucketCommand({ Bucket: bucket }));
  return { gw, db, stop: async () => (await db.shutdown(), await gw.stop()) };
}
