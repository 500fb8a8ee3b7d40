import { Writable } from 'stream';
import pino from 'pino';
import { JsonLogger } from './logger';

function capture(): { lines: Record<string, unknown>[]; stream: pino.DestinationStream } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()));
      cb();
    },
  });
  return { lines, stream: stream as unknown as pino.DestinationStream };
}

describe(JsonLogger.name, () => {
  it('writes one JSON object per line with app, context and fields', () => {
    const { lines, stream } = capture();
    const sut = new JsonLogger('gateway', 'info', stream);
    sut.forContext('PutObjectHandler').info('stored', { bucket: 'b', bytes: 10 });
    expect(lines[0]).toMatchObject({
      level: 'info',
      app: 'gateway',
      context: 'PutObjectHandler',
      msg: 'stored',
      bucket: 'b',
      bytes: 10,
    });
  });

  it('takes the trailing string of a Nest call as the context', () => {
    const { lines, stream } = capture();
    new JsonLogger('stats', 'info', stream).log('started', 'NestApplication');
    expect(lines[0]).toMatchObject({ msg: 'started', context: 'NestApplication' });
  });

  it('never writes secrets', () => {
    const { lines, stream } = capture();
    new JsonLogger('gateway', 'info', stream)
      .forContext('Admin')
      .info('key created', { accessKeyId: 'AK', secretAccessKey: 'S3CR3T' });
    expect(JSON.stringify(lines[0])).not.toContain('S3CR3T');
  });
});
