import { describe, expect, it } from 'vitest';
import {
  resolveSecretRecord,
  resolveSecrets,
  secretNames,
  secretProblems,
  secretTemplate,
  unsetSecretNames,
} from '../../src/core/config/secrets.js';
import { isPagejsonError, type PagejsonError } from '../../src/core/shared/errors.js';

function thrown(run: () => unknown): PagejsonError {
  try {
    run();
  } catch (error) {
    if (isPagejsonError(error)) return error;
    throw error;
  }
  throw new Error('expected an error');
}

describe('secrets: ${NAME} from the environment', () => {
  it('lists the well-formed names of a text, once each, in order', () => {
    expect(secretNames('Bearer ${API_TOKEN} and ${_X1} and ${API_TOKEN}')).toEqual(['API_TOKEN', '_X1']);
    expect(secretNames('no secret here, $HOME and {NAME}')).toEqual([]);
  });

  it('says what is wrong with a malformed placeholder, without needing anything set', () => {
    expect(secretProblems('Bearer ${API_TOKEN}')).toEqual([]);
    expect(secretProblems('Bearer ${api_token}')).toEqual([expect.stringContaining('"${api_token}" is not an environment variable name')]);
    expect(secretProblems('${1ABC}')).toHaveLength(1);
    expect(secretProblems('${ SPACED }')).toHaveLength(1);
    expect(secretProblems('Bearer ${API_TOKEN')).toEqual([expect.stringContaining('not closed')]);
    expect(secretProblems('${}')).toHaveLength(1);
  });

  it('refuses malformed placeholders in the zod sub-schema, where they stand', () => {
    expect(secretTemplate(100).safeParse('Bearer ${TOKEN}').success).toBe(true);
    const refused = secretTemplate(100).safeParse('Bearer ${token}');
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toContain('not an environment variable name');
  });

  it('resolves every placeholder from the environment given', () => {
    expect(resolveSecrets('Bearer ${API_TOKEN}', { API_TOKEN: 's3cr3t' })).toBe('Bearer s3cr3t');
    expect(resolveSecrets('${A}:${B}', { A: 'user', B: 'p@ss' })).toBe('user:p@ss');
    expect(resolveSecrets('plain', {})).toBe('plain');
    expect(resolveSecretRecord({ authorization: 'Bearer ${T}' }, { T: 'x' }, 'request.headers')).toEqual({ authorization: 'Bearer x' });
  });

  it('fails naming the unset variable and where it is used, never a value', () => {
    const error = thrown(() =>
      resolveSecrets('Bearer ${API_TOKEN} ${OTHER}', { OTHER: 'visible-if-leaked' }, 'request.headers.authorization'),
    );
    expect(error.code).toBe('FETCH_FAILED');
    expect(error.message).toBe('the environment variable API_TOKEN is not set (used in request.headers.authorization)');
    expect(error.hint).toContain('set API_TOKEN');
    expect(JSON.stringify({ message: error.message, hint: error.hint, context: error.context })).not.toContain('visible-if-leaked');
    // An empty value is as good as unset: a header `Bearer ` is never what the user meant.
    expect(thrown(() => resolveSecrets('${T}', { T: '' })).message).toContain('T is not set');
  });

  it('refuses a value with a line break (header splitting), naming the variable only', () => {
    const error = thrown(() => resolveSecrets('Bearer ${T}', { T: 'abc\r\nx-injected: 1' }, 'request.headers.authorization'));
    expect(error.message).toContain('T holds a control character');
    expect(`${error.message} ${error.hint}`).not.toContain('x-injected');
  });

  it('does not read inherited properties of the environment object', () => {
    expect(() => resolveSecrets('${__PROTO__}', {})).toThrow(/__PROTO__ is not set/);
    expect(() => resolveSecrets('${CONSTRUCTOR}', Object.create({ CONSTRUCTOR: 'inherited' }) as Record<string, string>)).toThrow(
      /not set/,
    );
  });

  it('lists the unset names among several texts', () => {
    expect(unsetSecretNames(['${A} ${B}', '${C}'], { B: 'x' })).toEqual(['A', 'C']);
  });
});
