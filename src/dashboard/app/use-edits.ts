import { useRef, useState } from 'preact/hooks';
import type { Operation } from './types';

/**
 * Pending `pagejson edit` operations on a page (an endpoint, a generation proposal), tried on the server as
 * they change. Answers can arrive out of order: only the answer to the latest request changes what is shown,
 * and a change made before the previous one was answered builds on the operations sent last.
 */
export type EditOutcome<A> = { kind: 'answer'; answer: A } | { kind: 'stale' } | { kind: 'failed' };

/** A selector typed twice in a row is one change, not two. */
function merged(pending: Operation[], next: Operation): Operation[] {
  const last = pending[pending.length - 1];
  if (last && last.kind === 'set' && next.kind === 'set' && last.key === next.key) return [...pending.slice(0, -1), next];
  return [...pending, next];
}

export function useEdits<A>(send: (operations: Operation[], save: boolean) => Promise<A>) {
  const [pending, setPending] = useState<Operation[]>([]);
  const [draft, setDraft] = useState<A | undefined>();
  const [busy, setBusy] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const latest = useRef(0);
  const issued = useRef<Operation[]>([]);

  const run = async (operations: Operation[], save: boolean): Promise<EditOutcome<A>> => {
    const request = ++latest.current;
    setError(undefined);
    setBusy(save ? 'Saving…' : 'Trying the change on the page…');
    try {
      const answer = await send(operations, save);
      return request === latest.current ? { kind: 'answer', answer } : { kind: 'stale' };
    } catch (caught) {
      if (request !== latest.current) return { kind: 'stale' };
      setError(caught);
      return { kind: 'failed' };
    } finally {
      if (request === latest.current) setBusy(undefined);
    }
  };

  return {
    pending,
    draft,
    setDraft,
    busy,
    setBusy,
    error,
    setError,
    /** Adds operations and tries them all; a refused change is dropped, the ones before it stay pending. */
    async change(...next: Operation[]): Promise<void> {
      const before = issued.current;
      const operations = next.reduce(merged, before);
      issued.current = operations;
      const outcome = await run(operations, false);
      if (outcome.kind === 'failed') issued.current = before;
      if (outcome.kind !== 'answer') return;
      setPending(operations);
      setDraft(outcome.answer);
    },
    /** Sends the pending operations (or the ones given) to be saved. */
    save: (operations: Operation[] = issued.current): Promise<EditOutcome<A>> => run(operations, true),
    /** Drops every pending operation. */
    forget(): void {
      issued.current = [];
      setPending([]);
      setDraft(undefined);
    },
  };
}
