import { FakeS3 } from './fake-s3';

/** `node -r @swc-node/register tools/bench/lib/fake-s3-main.ts` — the fake S3 of `run.ts selftest`, as a process of its own. */
const server = new FakeS3(process.env.FAKE_S3_KEEP_PREFIX ?? 'big/');
server
  .start(Number(process.env.FAKE_S3_PORT ?? 0))
  .then((address) => process.stdout.write(`listening ${address}\n`))
  .catch((e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exit(1);
  });
process.once('SIGTERM', () => void server.stop().then(() => process.exit(0)));
