import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/core/runtime.js';
import { buildApp, type DaemonApp } from '../../src/daemon/app.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { envelopeError, issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/**
 * POST bodies of /external are read by the retrieval after the key and endpoint rows, and never past 16 KiB
 * (src/daemon/request-body.ts): a caller announcing a large body and sending it slowly is answered at once,
 * without the daemon waiting for (or reading) the rest. Over a real socket: inject has no slow sender.
 */
let site: FixtureSite;
let temp: TempProject;
let runtime: Runtime;
let app: DaemonApp;
let port: number;
let key: string;

beforeAll(async () => {
  site = await startFixtureSite();
  temp = await makeProject([pageConfig('named', `${site.origin}/daemon/echo?name={{ name }}`, { variables: { name: { example: 'x' } } })]);
  runtime = await createRuntime(temp.project, { watch: false, memoryCacheOnly: true });
  app = await buildApp(runtime, { logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
  key = (await issueKey(runtime.store)).key;
});

afterAll(async () => {
  await app?.close();
  await runtime?.close();
  await site?.close();
  await temp?.cleanup();
});

/** Sends the head of a POST and the first bytes of its body, then waits for an answer without sending more. */
function partialPost(headers: Record<string, string>, firstBytes: string): Promise<{ head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const lines = [
      'POST /external/named HTTP/1.1',
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    socket.on('connect', () => socket.write(`${lines.join('\r\n')}\r\n\r\n${firstBytes}`));
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      const [head, body] = received.split('\r\n\r\n') as [string, string | undefined];
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? NaN);
      if (body !== undefined && Buffer.byteLength(body) >= length) {
        socket.destroy();
        resolve({ head, body });
      }
    });
    socket.on('error', reject);
  });
}

describe('POST bodies of /external', () => {
  it('answers an invalid key at once, without waiting for an announced body', async () => {
    const answer = await partialPost({ apikey: 'pj_not-a-key', 'Content-Length': '500000' }, '{"name":"');
    expect(answer.head.split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized');
    expect(answer.body).toBe(envelopeError('invalid key', 'KEY_INVALID'));
    // The rest of the body is not read: the connection is closed after the answer.
    expect(answer.head.toLowerCase()).toContain('connection: close');
  });

  it('refuses a body announced over 16 KiB as too large once the key rows pass, without reading it, and charges nothing', async () => {
    const before = (await runtime.store.getAccount('default'))!.balance;
    const answer = await partialPost({ apikey: key, 'Content-Length': '500000' }, '{"name":"');
    expect(answer.head.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    expect(answer.body).toBe(envelopeError('request body is too large', 'BODY_TOO_LARGE'));
    expect(answer.head.toLowerCase()).toContain('connection: close');
    expect((await runtime.store.getAccount('default'))!.balance).toBe(before);
  });

  it('stops reading a chunked body one byte past 16 KiB', async () => {
    const chunk = 'a'.repeat(17 * 1024);
    const answer = await partialPost({ apikey: key, 'Transfer-Encoding': 'chunked' }, `${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    expect(answer.head.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    expect(answer.body).toBe(envelopeError('request body is too large', 'BODY_TOO_LARGE'));
  });

  it('reads a whole small body and answers from it, keeping the connection', async () => {
    const payload = '{"name":"abc"}';
    const answer = await partialPost({ apikey: key, 'Content-Length': String(payload.length) }, payload);
    expect(answer.head.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(JSON.parse(answer.body).data.title).toBe('abc');
    expect(answer.head.toLowerCase()).not.toContain('connection: close');
  });
});
