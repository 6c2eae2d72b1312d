import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/core/access/key-service.js';
import { createLowdbStore } from '../../src/core/state/lowdb-store.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';

/** `pagejson usage` names keys by their label, as people know them; the id stays in --json (with the label). */
let root: string;
let labelled: string;
let unlabelled: string;

const cli = (...args: string[]) =>
  execa(process.execPath, [CLI_BIN, '--project', root, ...args], {
    cwd: root,
    reject: false,
    env: { NO_COLOR: '1', PAGEJSON_DATA_DIR: '' },
  });

beforeAll(async () => {
  await ensureBuilt();
  root = await mkdtemp(join(tmpdir(), 'pagejson-'));
  await writeFile(join(root, 'pagejson.json'), '{}\n');
  await mkdir(join(root, 'configs'));
  const store = await createLowdbStore({ file: join(root, '.pagejson', 'state.json') });
  labelled = (await createKey(store, { label: 'partner-x' }, { freeMilliCredits: 0 })).id;
  unlabelled = (await createKey(store, {}, { freeMilliCredits: 0 })).id;
  const at = new Date();
  await store.recordUsage({ apiId: 'books', keyId: labelled, account: 'default', milliCredits: 400, outcome: 'MISS', at });
  await store.recordUsage({ apiId: 'books', keyId: unlabelled, account: 'default', milliCredits: 0, outcome: 'ERROR', at });
  await store.close();
}, 120_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('keys by label', () => {
  it('usage shows the label of a labelled key and the id of one without', async () => {
    const human = await cli('usage');
    expect(human.exitCode).toBe(0);
    const rows = human.stdout.split('\n').filter((line) => line.includes('books'));
    expect(rows).toHaveLength(2);
    expect(rows.find((line) => line.includes('partner-x'))).toBeDefined();
    expect(human.stdout).not.toContain(labelled);
    expect(rows.find((line) => line.includes(unlabelled))).toBeDefined();
    const json = JSON.parse((await cli('usage', '--json')).stdout) as Array<{ keyId: string; keyLabel: string | null }>;
    expect(json.map(({ keyId, keyLabel }) => ({ keyId, keyLabel }))).toEqual(
      expect.arrayContaining([
        { keyId: labelled, keyLabel: 'partner-x' },
        { keyId: unlabelled, keyLabel: null },
      ]),
    );
  });
});
