import { useRef, useState } from 'preact/hooks';
import type { Field, Operation } from '../app/types';

/**
 * The structure as a tree, each field editable in place: rename, type, selector (tried live on the page by
 * the caller's preview), move up or down, remove; and a form to add a field. Every change is handed up as
 * one operation of `pagejson edit`; the tree always shows the config the daemon computed from them.
 */
const TYPES = ['string', 'number', 'integer', 'boolean', 'url', 'date', 'object', 'array'];

interface Props {
  structure: Field[];
  onOperation: (operation: Operation) => void;
  disabled?: boolean;
}

export function StructureEditor({ structure, onOperation, disabled }: Props) {
  return (
    <div class="structure">
      <ul class="tree" role="tree" aria-label="Fields of the structure">
        {structure.map((field, index) => (
          <FieldRow
            key={`${field.name}-${index}`}
            field={field}
            path={field.name}
            index={index}
            count={structure.length}
            onOperation={onOperation}
            disabled={disabled}
          />
        ))}
      </ul>
      <AddField onOperation={onOperation} disabled={disabled} />
    </div>
  );
}

function FieldRow({
  field,
  path,
  index,
  count,
  onOperation,
  disabled,
}: {
  field: Field;
  path: string;
  index: number;
  count: number;
  onOperation: (operation: Operation) => void;
  disabled?: boolean | undefined;
}) {
  const [name, setName] = useState(field.name);
  const [selector, setSelector] = useState(field.selector ?? '');
  const children = field.fields ?? field.items?.fields ?? [];
  // Enter sends a change and the blur that follows (the input is disabled while the change is tried) must
  // not send it again: what was sent last is remembered.
  const sent = useRef({ name: field.name, selector: field.selector ?? '' });
  const rename = () => {
    const next = name.trim();
    if (next === '' || next === sent.current.name) return;
    sent.current.name = next;
    onOperation({ kind: 'rename', path, name: next });
  };
  const setSelectorNow = () => {
    if (selector === sent.current.selector) return;
    sent.current.selector = selector;
    onOperation({ kind: 'set', key: `${path}.selector`, value: selector });
  };
  return (
    <li role="treeitem" aria-expanded={children.length > 0 ? true : undefined} aria-label={path}>
      <div class="field-row">
        <label class="visually-hidden" for={`name-${path}`}>
          Name of {path}
        </label>
        <input
          id={`name-${path}`}
          class="field-name"
          value={name}
          title={name}
          disabled={disabled}
          onInput={(event) => setName(event.currentTarget.value)}
          onBlur={rename}
          onKeyDown={(event) => event.key === 'Enter' && rename()}
        />
        <label class="visually-hidden" for={`type-${path}`}>
          Type of {path}
        </label>
        <select
          id={`type-${path}`}
          value={field.type}
          disabled={disabled}
          onChange={(event) => onOperation({ kind: 'set', key: `${path}.type`, value: event.currentTarget.value })}
        >
          {TYPES.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
        <label class="visually-hidden" for={`selector-${path}`}>
          Selector of {path}
        </label>
        <input
          id={`selector-${path}`}
          class="selector"
          placeholder="CSS selector (empty: filled by the model)"
          value={selector}
          disabled={disabled}
          spellcheck={false}
          onInput={(event) => setSelector(event.currentTarget.value)}
          onBlur={setSelectorNow}
          onKeyDown={(event) => event.key === 'Enter' && setSelectorNow()}
        />
        {field.attribute ? <span class="muted small">@{field.attribute}</span> : null}
        <span class="row-actions">
          <button
            type="button"
            class="icon"
            aria-label={`Move ${path} up`}
            disabled={disabled || index === 0}
            onClick={() => onOperation({ kind: 'move', path, position: index })}
          >
            ↑
          </button>
          <button
            type="button"
            class="icon"
            aria-label={`Move ${path} down`}
            disabled={disabled || index === count - 1}
            onClick={() => onOperation({ kind: 'move', path, position: index + 2 })}
          >
            ↓
          </button>
          <button
            type="button"
            class="icon danger"
            aria-label={`Remove ${path}`}
            disabled={disabled}
            onClick={() => onOperation({ kind: 'remove', path })}
          >
            ✕
          </button>
        </span>
      </div>
      {children.length > 0 ? (
        <ul role="group">
          {children.map((child, childIndex) => (
            <FieldRow
              key={`${child.name}-${childIndex}`}
              field={child}
              path={`${path}.${child.name}`}
              index={childIndex}
              count={children.length}
              onOperation={onOperation}
              disabled={disabled}
            />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

function AddField({ onOperation, disabled }: { onOperation: (operation: Operation) => void; disabled?: boolean | undefined }) {
  const [path, setPath] = useState('');
  const [type, setType] = useState('string');
  const [selector, setSelector] = useState('');
  return (
    <form
      class="add-field"
      onSubmit={(event) => {
        event.preventDefault();
        if (path.trim() === '') return;
        onOperation({ kind: 'add', path: path.trim(), type, ...(selector.trim() ? { selector: selector.trim() } : {}) });
        setPath('');
        setSelector('');
      }}
    >
      <label>
        New field <span class="muted small">(a.b adds inside a)</span>
        <input value={path} disabled={disabled} onInput={(event) => setPath(event.currentTarget.value)} placeholder="name" />
      </label>
      <label>
        Type
        <select value={type} disabled={disabled} onChange={(event) => setType(event.currentTarget.value)}>
          {TYPES.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Selector
        <input
          value={selector}
          disabled={disabled}
          spellcheck={false}
          onInput={(event) => setSelector(event.currentTarget.value)}
          placeholder=".price"
        />
      </label>
      <button type="submit" class="secondary" disabled={disabled || path.trim() === ''}>
        Add field
      </button>
    </form>
  );
}
