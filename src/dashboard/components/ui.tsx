import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../app/api';

/** Shared pieces. Every value from a page or a config is rendered as text (Preact escapes it): never as HTML. */
export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const problem = error instanceof ApiError ? error.problem : { code: 'ERROR', message: (error as Error).message ?? String(error) };
  return (
    <div class="error" role="alert">
      <strong>{problem.message}</strong>
      {'hint' in problem && problem.hint ? <div class="hint">{problem.hint}</div> : null}
      {'problems' in problem && problem.problems ? (
        <ul>
          {problem.problems.map((p, index) => (
            <li key={index}>
              <code>{p.path}</code>: {p.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** A wait with words and seconds, for work that takes a while (a fetch, a model). */
export function Busy({ label }: { label: string }) {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    const started = Date.now();
    const timer = setInterval(() => setSeconds(Math.floor((Date.now() - started) / 1000)), 500);
    return () => clearInterval(timer);
  }, []);
  return (
    <div class="busy" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> {label}
      {seconds > 0 ? ` (${seconds} s)` : ''}
    </div>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="secondary small"
      onClick={async () => {
        await navigator.clipboard.writeText(text).catch(() => undefined);
        setDone(true);
        setTimeout(() => setDone(false), 1500);
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

export function JsonView({ value, label }: { value: unknown; label: string }) {
  return (
    <pre class="json" tabIndex={0} aria-label={label}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

export function Health({ health }: { health: string | null }) {
  if (!health) return <span class="badge muted">not fetched yet</span>;
  return <span class={`badge ${health}`}>{health}</span>;
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  return (
    <section class="card" aria-labelledby={id ? `${id}-title` : undefined}>
      <h2 id={id ? `${id}-title` : undefined}>{title}</h2>
      {children}
    </section>
  );
}

/**
 * Moves focus to the page's heading when the user moves to another page, so keyboard and screen-reader users
 * start there; not on the first page load, where the browser's own order (skip link first) applies.
 */
let firstPage = true;
export function PageTitle({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (firstPage) firstPage = false;
    else ref.current?.focus();
  }, []);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}
