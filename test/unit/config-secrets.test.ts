import { describe, expect, it } from 'vitest';
import {
  allowedSecretNames,
  assertSecretsAllowed,
  resolveSecretRecord,
  resolveSecrets,
  secretNames,
  secretProblems,
  secretTemplate,
  unsetSecretNames,
  withAllowedSecrets,
} from '../../src/core/config/secrets.js';
import { secretUses } from '../../src/core/config/secret-uses.js';
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

  it('resolves every placeholder the operator allows from the environment given', () => {
    expect(resolveSecrets('Bearer ${API_TOKEN}', { API_TOKEN: 's3cr3t', PAGEJSON_SECRETS: 'API_TOKEN' })).toBe('Bearer s3cr3t');
    expect(resolveSecrets('${A}:${B}', { A: 'user', B: 'p@ss', PAGEJSON_SECRETS: 'A, B' })).toBe('user:p@ss');
    expect(resolveSecrets('plain', {})).toBe('plain');
    expect(resolveSecretRecord({ authorization: 'Bearer ${T}' }, { T: 'x', PAGEJSON_SECRETS: 'T' }, 'request.headers')).toEqual({
      authorization: 'Bearer x',
    });
  });

  it('reads no variable the operator has not allowed, set or not, and says how to allow it (issue 45)', () => {
    const env = { GITHUB_TOKEN: 'ghp_visible-if-leaked', API_TOKEN: 'ok' };
    for (const allowList of [undefined, '', 'API_TOKEN', 'GITHUB', 'GITHUB_TOKEN_2,API_TOKEN']) {
      const error = thrown(() =>
        resolveSecrets(
          'token ${GITHUB_TOKEN}',
          { ...env, ...(allowList === undefined ? {} : { PAGEJSON_SECRETS: allowList }) },
          'request.headers.Authorization',
        ),
      );
      expect(error.code).toBe('FETCH_FAILED');
      expect(error.message).toBe(
        'the environment variable GITHUB_TOKEN is not allowed (used in request.headers.Authorization): allow it with PAGEJSON_SECRETS=GITHUB_TOKEN or --allow-secret GITHUB_TOKEN',
      );
      expect(JSON.stringify({ message: error.message, hint: error.hint, context: error.context })).not.toContain('visible-if-leaked');
    }
    expect(resolveSecrets('token ${GITHUB_TOKEN}', { ...env, PAGEJSON_SECRETS: 'API_TOKEN GITHUB_TOKEN' })).toBe(
      'token ghp_visible-if-leaked',
    );
    expect(allowedSecretNames({ PAGEJSON_SECRETS: ' A,B  C,,' })).toEqual(new Set(['A', 'B', 'C']));
    expect(withAllowedSecrets({ PAGEJSON_SECRETS: 'A' }, ['B', 'A'])).toEqual({ PAGEJSON_SECRETS: 'A,B' });
  });

  it('checks every text of an endpoint against the allow-list before anything is resolved', () => {
    const uses = secretUses({
      request: { headers: { Authorization: 'Bearer ${API_TOKEN}' }, cookies: { s: '${SITE_SESSION}' } },
      proxy: { urls: ['http://u:${PROXY_PASS}@proxy.example:3128'], rotate: 'round-robin' },
      login: { url: 'https://shop.example/login', steps: [{ ifExists: '#a', then: [{ type: '#p', text: '${AWS_SECRET_ACCESS_KEY}' }] }] },
    });
    expect(uses.map((use) => use.where)).toEqual([
      'request.headers.Authorization',
      'request.cookies.s',
      'proxy.urls[0]',
      'login.url',
      'login.steps[0].then[0].text',
    ]);
    const allowed = { PAGEJSON_SECRETS: 'API_TOKEN,SITE_SESSION,PROXY_PASS' };
    expect(() => assertSecretsAllowed(uses, allowed)).toThrow(
      'the environment variable AWS_SECRET_ACCESS_KEY is not allowed (used in login.steps[0].then[0].text)',
    );
    expect(() => assertSecretsAllowed(uses, { PAGEJSON_SECRETS: `${allowed.PAGEJSON_SECRETS},AWS_SECRET_ACCESS_KEY` })).not.toThrow();
  });

  it('fails naming the unset variable and where it is used, never a value', () => {
    const error = thrown(() =>
      resolveSecrets(
        'Bearer ${API_TOKEN} ${OTHER}',
        { OTHER: 'visible-if-leaked', PAGEJSON_SECRETS: 'API_TOKEN,OTHER' },
        'request.headers.authorization',
      ),
    );
    expect(error.code).toBe('FETCH_FAILED');
    expect(error.message).toBe('the environment variable API_TOKEN is not set (used in request.headers.authorization)');
    expect(error.hint).toContain('set API_TOKEN');
    expect(JSON.stringify({ message: error.message, hint: error.hint, context: error.context })).not.toContain('visible-if-leaked');
    // An empty value is as good as unset: a header `Bearer ` is never what the user meant.
    expect(thrown(() => resolveSecrets('${T}', { T: '', PAGEJSON_SECRETS: 'T' })).message).toContain('T is not set');
  });

  it('refuses a value with a line break (header splitting), naming the variable only', () => {
    const error = thrown(() =>
      resolveSecrets('Bearer ${T}', { T: 'abc\r\nx-injected: 1', PAGEJSON_SECRETS: 'T' }, 'request.headers.authorization'),
    );
    expect(error.message).toContain('T holds a control character');
    expect(`${error.message} ${error.hint}`).not.toContain('x-injected');
  });

  it('does not read inherited properties of the environment object', () => {
    expect(() => resolveSecrets('${__PROTO__}', { PAGEJSON_SECRETS: '__PROTO__' })).toThrow(/__PROTO__ is not set/);
    const inherited = Object.assign(Object.create({ CONSTRUCTOR: 'inherited' }) as Record<string, string>, {
      PAGEJSON_SECRETS: 'CONSTRUCTOR',
    });
    expect(() => resolveSecrets('${CONSTRUCTOR}', inherited)).toThrow(/not set/);
    // Nor is the allow-list itself read from the prototype.
    const allowInherited = Object.create({ PAGEJSON_SECRETS: 'T' }) as Record<string, string>;
    expect(() => resolveSecrets('${T}', Object.assign(allowInherited, { T: 'x' }))).toThrow(/T is not allowed/);
  });

  it('lists the unset names among several texts', () => {
    expect(unsetSecretNames(['${A} ${B}', '${C}'], { B: 'x' })).toEqual(['A', 'C']);
  });
});
