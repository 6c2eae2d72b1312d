import { useRef, useState } from 'preact/hooks';
import type { Operation, UrlPlace } from '../app/types';

/**
 * Each path segment and each query parameter has its own toggle to make it dynamic, and each
 * dynamic one gets a variable name. Toggling hands up `--var`/`--unvar` operations.
 */
function suggestedName(place: UrlPlace): string {
  if (place.kind === 'query') {
    const cleaned = place.label.replace(/[^A-Za-z0-9_]/g, '_');
    return /^[A-Za-z_]/.test(cleaned) ? cleaned : `q_${cleaned}`;
  }
  return `segment${place.label}`;
}

export function UrlPlaces({
  places,
  onOperation,
  disabled,
}: {
  places: UrlPlace[];
  onOperation: (...operations: Operation[]) => void;
  disabled?: boolean;
}) {
  if (places.length === 0) return <p class="muted">This URL has no path segment or query parameter to make dynamic.</p>;
  return (
    <table class="places">
      <caption class="visually-hidden">Path segments and query parameters</caption>
      <thead>
        <tr>
          <th scope="col">Dynamic</th>
          <th scope="col">Place</th>
          <th scope="col">Value (example)</th>
          <th scope="col">Variable name</th>
        </tr>
      </thead>
      <tbody>
        {places.map((place) => (
          <PlaceRow key={`${place.spec}-${place.variable ?? ''}`} place={place} onOperation={onOperation} disabled={disabled} />
        ))}
      </tbody>
    </table>
  );
}

function PlaceRow({
  place,
  onOperation,
  disabled,
}: {
  place: UrlPlace;
  onOperation: (...operations: Operation[]) => void;
  disabled?: boolean | undefined;
}) {
  const [name, setName] = useState(place.variable ?? suggestedName(place));
  const what = place.kind === 'path' ? `path segment ${place.label}` : `query parameter ${place.label}`;
  const toggle = (on: boolean) => {
    if (on) onOperation({ kind: 'var', spec: place.spec, name: name.trim() || suggestedName(place) });
    else if (place.variable) onOperation({ kind: 'unvar', name: place.variable });
  };
  // Enter and the blur that follows must not send the same rename twice.
  const sent = useRef(place.variable);
  const rename = () => {
    // A dynamic place renamed: fixed again, then dynamic under the new name (both in the one pending revision).
    const next = name.trim();
    if (place.variable && next !== '' && next !== sent.current) {
      sent.current = next;
      onOperation({ kind: 'unvar', name: place.variable }, { kind: 'var', spec: place.spec, name: next });
    }
  };
  return (
    <tr>
      <td>
        <input
          type="checkbox"
          id={`dyn-${place.spec}`}
          checked={place.variable !== null}
          disabled={disabled}
          onChange={(event) => toggle(event.currentTarget.checked)}
          aria-label={`Make ${what} dynamic`}
        />
      </td>
      <td>
        <label for={`dyn-${place.spec}`}>{what}</label>
      </td>
      <td>
        <code>{place.value}</code>
      </td>
      <td>
        <label class="visually-hidden" for={`var-${place.spec}`}>
          Variable name for {what}
        </label>
        <input
          id={`var-${place.spec}`}
          value={name}
          disabled={disabled}
          onInput={(event) => setName(event.currentTarget.value)}
          onBlur={rename}
          onKeyDown={(event) => event.key === 'Enter' && rename()}
        />
      </td>
    </tr>
  );
}
