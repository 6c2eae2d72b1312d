import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { assertAnnouncedLength, readBodyWithLimit } from '../../src/core/fetch/net/body-limit.js';
import { rejection } from '../support/rejection.js';

function chunks(sizes: number[]): Readable & { produced: () => number } {
  let index = 0;
  let produced = 0;
  const stream = new Readable({
    read() {
      const size = sizes[index++];
      if (size === undefined) {
        this.push(null);
        return;
      }
      produced += size;
      this.push(Buffer.alloc(size, 'a'));
    },
  });
  return Object.assign(stream, { produced: () => produced });
}

describe('body limit', () => {
  it('reads a body up to exactly the cap', async () => {
    const body = await readBodyWithLimit(chunks([4, 4, 2]), 10);
    expect(body.length).toBe(10);
  });

  it('stops reading as soon as the cap is passed', async () => {
    const source = chunks([6, 6, 6, 6, 6, 6]);
    const error = await rejection(readBodyWithLimit(source, 10));
    expect(error).toBeInstanceOf(PagejsonError);
    expect(error.code).toBe('FETCH_TOO_LARGE');
    expect(error.message).toBe('response is larger than 10 bytes');
    expect(source.produced()).toBeLessThan(36);
  });

  it('refuses an announced length over the cap and ignores nonsense', () => {
    expect(() => assertAnnouncedLength('11', 10)).toThrow('response is larger than 10 bytes');
    expect(() => assertAnnouncedLength('10', 10)).not.toThrow();
    expect(() => assertAnnouncedLength(undefined, 10)).not.toThrow();
    expect(() => assertAnnouncedLength('abc', 10)).not.toThrow();
  });
});
