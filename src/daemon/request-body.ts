import type { Readable } from 'node:stream';

/**
 * A POST body of /external as the retrieval reads it (RequestBody in src/core/retrieval/types.ts): not read by
 * the transport, but by the retrieval's `read input` stage, once the key and endpoint rows have passed, and
 * never past the body row's limit: a Content-Length over it is refused unread, and a longer stream stops being
 * read at one byte past it. Fastify's own body reading cannot wait for those rows (it runs before the
 * handler), and is not exposed on its own, so these few lines do what its raw-body reader does, bounded.
 *
 * A class, so that the method is on the prototype: a POST makes one object, not a closure per request.
 */
export class StreamBody {
  constructor(
    private readonly stream: Readable,
    readonly contentType: string | undefined,
    /** The declared Content-Length (NaN when none was sent, as with chunked bodies). */
    private readonly declared: number,
  ) {}

  read(maxBytes: number): Promise<Buffer | undefined> {
    if (this.declared > maxBytes) return Promise.resolve(undefined);
    const stream = this.stream;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let length = 0;
      const stop = () => {
        stream.off('data', onData);
        stream.off('end', onEnd);
        stream.off('error', onError);
        stream.off('close', onError);
      };
      const onData = (chunk: Buffer) => {
        length += chunk.length;
        if (length <= maxBytes) chunks.push(chunk);
        else {
          // The rest is not read: the error handler closes the connection once the 413 is sent.
          stop();
          resolve(undefined);
        }
      };
      const onEnd = () => {
        stop();
        resolve(Buffer.concat(chunks, length));
      };
      // A connection that ends before the body does (`close` without `end`) is an error too.
      const onError = (error?: Error) => {
        stop();
        reject(Object.assign(new Error('the request body could not be read'), { statusCode: 400, cause: error }));
      };
      stream.on('data', onData);
      stream.on('end', onEnd);
      stream.on('error', onError);
      stream.on('close', onError);
    });
  }
}
