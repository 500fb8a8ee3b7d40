import type { ServerResponse } from 'http';
import type { Readable } from 'stream';
import { finished, pipeline } from 'stream/promises';
import { recyclerOf } from '@ostore/storage/blocks';

function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

/** Resolves at the response's next 'drain' or 'close', whichever comes first. */
function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Sends `body` as the rest of a started response, as `pipeline(body, res)` does: with backpressure,
 * a body error destroys the response, a response closed before the end (client gone) destroys the
 * body, and either rejects. When the body lends its chunks from a pool (`recyclerOf`, a block
 * read), each chunk goes back once the socket has written it (the write's callback), so a large
 * GET cycles through a few buffers instead of allocating one per read.
 */
export async function sendBody(body: Readable, res: ServerResponse): Promise<void> {
  const recycle = recyclerOf(body);
  if (!recycle) return pipeline(body, res);
  let closed = false;
  const onClose = () => {
    closed = true;
  };
  // A response error also ends in 'close'; without a listener it would be an uncaught 'error' event.
  const onError = () => undefined;
  res.on('close', onClose);
  res.on('error', onError);
  try {
    // Leaving the loop early (throw) destroys the body, which closes what it has open.
    for await (const chunk of body as AsyncIterable<Buffer>) {
      if (closed || res.destroyed) throw prematureClose();
      const more = res.write(chunk, (err) => {
        if (!err) recycle(chunk);
      });
      if (!more) await drainOrClose(res);
    }
    if (closed || res.destroyed) throw prematureClose();
    res.end();
    await finished(res);
  } catch (e) {
    if (!res.destroyed) res.destroy();
    throw e;
  } finally {
    res.off('close', onClose);
    res.off('error', onError);
  }
}
