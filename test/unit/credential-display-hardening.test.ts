import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiConfigSchema } from '../../src/core/config/schema.js';
import { displayCookieValue, displayHeaderValue, displayProxyUrl } from '../../src/core/config/access-display.js';
import { displayLogin } from '../../src/core/config/login-display.js';
import { refuseLiteralCredentials } from '../../src/core/edit/access-edit.js';
import { refuseLiteralLoginCredentials } from '../../src/core/edit/login-edit.js';
import { keepRevision, listRevisions } from '../../src/core/edit/revisions.js';

/**
 * Issue 45, items 6 and 7: the dashboard's revisions list showed a login password the endpoint view masks, and
 * its "templates only" rule for credentials let through a field named `pwd` and values that merely contain a
 * template (`hunter2${X}`, `Bearer hunter2 ${T}`). A credential is shown, and taken, only as a template alone.
 */
const LITERAL = 'hunter2-literal-pw';
const set = (key: string, value: string) => [{ kind: 'set', key, value }];

describe('credentials that are not templates alone', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pagejson-revisions-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('are masked in the revisions list, its configs and its file diffs', async () => {
    const config = (revision: number, password: string) =>
      ApiConfigSchema.parse({
        apiId: 'members',
        revision,
        url: 'https://shop.example/members',
        login: { url: 'https://shop.example/login', form: { username: 'ada', password } },
        structure: [{ name: 'title', type: 'string', selector: 'h1' }],
      });
    await keepRevision(dataDir, config(1, LITERAL));
    const views = await listRevisions(dataDir, config(2, `${LITERAL}-2`));
    expect(views).toHaveLength(2);
    expect(JSON.stringify(views)).not.toContain(LITERAL);
    expect(views[1]!.config.login?.form?.password).toBe('••••');
  });

  it('are masked wherever shown when a literal stands beside the template, or the field is named pwd', () => {
    const login = displayLogin({
      url: 'https://shop.example/login',
      form: { pwd: LITERAL, password: `${LITERAL}\${X}`, passwd: '${SHOP_PASSWORD}' },
    });
    expect(login.form).toEqual({ pwd: '••••', password: '••••', passwd: '${SHOP_PASSWORD}' });
    expect(displayHeaderValue('Authorization', `Bearer ${LITERAL} \${T}`)).toBe('Bearer ••••');
    expect(displayHeaderValue('Authorization', 'Bearer ${T}')).toBe('Bearer ${T}');
    expect(displayCookieValue(`${LITERAL}\${X}`)).toBe('••••');
    expect(displayProxyUrl(`http://u:${LITERAL}\${X}@proxy.example:3128`)).toBe('http://u:••••@proxy.example:3128');
  });

  it('are refused by the dashboard rule, which takes a template alone (a header with its scheme word)', () => {
    expect(() => refuseLiteralLoginCredentials(set('login.form.pwd', LITERAL))).toThrow('write the credential as ${NAME}');
    expect(() => refuseLiteralLoginCredentials(set('login.form.password', `${LITERAL}\${X}`))).toThrow('write the credential as ${NAME}');
    expect(() => refuseLiteralLoginCredentials(set('login.form.password', '${SHOP_PASSWORD}'))).not.toThrow();
    expect(() => refuseLiteralCredentials(set('request.headers.Authorization', `Bearer ${LITERAL} \${T}`))).toThrow(
      'write the credential as ${NAME}',
    );
    expect(() => refuseLiteralCredentials(set('request.cookies.session', `${LITERAL}\${X}`))).toThrow('write the credential as ${NAME}');
    expect(() => refuseLiteralCredentials(set('proxy.urls', `http://u:${LITERAL}\${X}@proxy.example:3128`))).toThrow(
      'write the credential as ${NAME}',
    );
    expect(() => refuseLiteralCredentials(set('request.headers.Authorization', 'Bearer ${API_TOKEN}'))).not.toThrow();
  });
});
