import { useState } from 'preact/hooks';
import { api } from '../app/api';
import type { Change } from '../app/types';
import { Busy, ErrorBox, Health, Section } from './ui';

/**
 * The repair, shown before it is saved (issue 47 item 3), as `pagejson heal` shows it: the daemon's proposal
 * or a fresh repair from the last good values, the change field by field, what it could not repair or refused,
 * the health now and with the repair; Save only when the repair is better and no healthy field fails with it.
 */
interface Judged {
  state: 'healthy' | 'degraded' | 'broken';
  failing: string[];
  findings: string[];
}

export interface RepairAnswer {
  source: 'proposal' | 'heal';
  by: string;
  fromRevision: number;
  toRevision: number;
  recovery: { found: number; total: number };
  changes: Change[];
  unrepaired: string[];
  refused: string[];
  now: Judged;
  withRepair: Judged;
  better: boolean;
  reason?: string;
  written: boolean;
}

function HealthLine({ label, judged }: { label: string; judged: Judged }) {
  return (
    <p>
      {label}: <Health health={judged.state} />
      {judged.findings.length > 0 ? <span class="small"> {judged.findings.join('; ')}</span> : null}
    </p>
  );
}

function RepairShown({ answer }: { answer: RepairAnswer }) {
  const { found, total } = answer.recovery;
  return (
    <div class="repair" data-testid="repair">
      <p>
        {answer.source === 'proposal' ? "The daemon's proposal" : 'A repair'} by {answer.by}, revision {answer.fromRevision} →{' '}
        {answer.toRevision}: recovers {found} of {total} last good values ({total === 0 ? 0 : Math.round((100 * found) / total)}%)
      </p>
      {answer.changes.length > 0 ? (
        <ul class="repair-changes">
          {answer.changes.map((change) => (
            <li key={change.text}>{change.text}</li>
          ))}
        </ul>
      ) : null}
      {answer.unrepaired.length > 0 ? <p class="warning">not repaired (selectors kept): {answer.unrepaired.join(', ')}</p> : null}
      {answer.refused.map((refusal) => (
        <p class="warning" key={refusal}>
          refused: {refusal}
        </p>
      ))}
      <HealthLine label="now" judged={answer.now} />
      <HealthLine label="with the repair" judged={answer.withRepair} />
      {answer.reason ? <p class="muted">{answer.reason}</p> : null}
    </div>
  );
}

export function RepairView({ apiId, revision, onSaved }: { apiId: string; revision: number; onSaved?: () => void }) {
  const [answer, setAnswer] = useState<RepairAnswer | undefined>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState<string | undefined>();
  const ask = async (save: boolean) => {
    setBusy(save ? 'Saving the repair…' : 'Working out the repair on the page as it is now…');
    setError(undefined);
    try {
      const next = await api<RepairAnswer>('POST', `/endpoints/${apiId}/repair`, { baseRevision: revision, save });
      setAnswer(next);
      if (next.written) onSaved?.();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <Section title="Repair" id="repair">
      <p class="small muted">
        Repairs the selectors from the last good values (the daemon's proposal when it has one), shows the change and the health with it,
        and saves it only when that is better.
      </p>
      {answer?.written ? (
        <p class="success" role="status">
          Saved as revision {answer.toRevision}.
        </p>
      ) : null}
      {answer && !answer.written ? <RepairShown answer={answer} /> : null}
      <ErrorBox error={error} />
      {busy ? <Busy label={busy} /> : null}
      <div class="actions">
        <button type="button" class="secondary" disabled={busy !== undefined} onClick={() => void ask(false)}>
          {answer ? 'Work it out again' : 'Show a repair'}
        </button>
        {answer && !answer.written ? (
          <button type="button" disabled={busy !== undefined || !answer.better} onClick={() => void ask(true)}>
            Save the repair
          </button>
        ) : null}
      </div>
    </Section>
  );
}
