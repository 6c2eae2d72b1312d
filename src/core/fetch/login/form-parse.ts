import { Parser } from 'htmlparser2';

/**
 * The forms of a login page, read in one pass of htmlparser2's tokenizer (no DOM): each form's action, method
 * and enctype, and the fields a browser would submit with it, hidden ones (CSRF tokens) included, with their
 * values as the page gives them. Bounded: the page is capped before it gets here, and so are forms and fields.
 */
export interface FormField {
  name: string;
  /** Lower-cased input type (`text`, `hidden`, `password`, `checkbox`, `submit`…), `textarea` or `select`. */
  type: string;
  value: string;
  /** Checkboxes and radios: whether a browser would send it. */
  checked: boolean;
}

export interface ParsedForm {
  action: string | undefined;
  method: string;
  enctype: string;
  fields: FormField[];
  hasPassword: boolean;
}

const MAX_FORMS = 100;
const MAX_FIELDS = 1_000;

interface Open {
  textarea?: FormField;
  select?: { field: FormField; first?: string; chosen?: string };
  option?: { value: string | undefined; text: string; selected: boolean };
}

function field(name: string, type: string, value: string, checked = true): FormField {
  return { name, type, value, checked };
}

function inputOf(attributes: Record<string, string>): FormField | undefined {
  const name = attributes.name;
  if (!name) return undefined;
  const type = (attributes.type ?? 'text').toLowerCase();
  const checkable = type === 'checkbox' || type === 'radio';
  return field(name, type, attributes.value ?? (checkable ? 'on' : ''), !checkable || 'checked' in attributes);
}

function endSelect(open: Open): void {
  const select = open.select;
  if (!select) return;
  select.field.value = select.chosen ?? select.first ?? '';
  open.select = undefined;
}

function endOption(open: Open): void {
  const option = open.option;
  if (!option || !open.select) return;
  const value = option.value ?? option.text.replace(/\s+/g, ' ').trim();
  open.select.first ??= value;
  if (option.selected && open.select.chosen === undefined) open.select.chosen = value;
  open.option = undefined;
}

export function parseForms(html: string): ParsedForm[] {
  const forms: ParsedForm[] = [];
  let form: ParsedForm | undefined;
  const open: Open = {};
  const add = (made: FormField | undefined): void => {
    if (!form || !made || form.fields.length >= MAX_FIELDS) return;
    form.fields.push(made);
    if (made.type === 'password') form.hasPassword = true;
  };
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'form' && !form && forms.length < MAX_FORMS) {
          form = {
            action: attributes.action,
            method: (attributes.method ?? 'get').toLowerCase(),
            enctype: (attributes.enctype ?? 'application/x-www-form-urlencoded').toLowerCase(),
            fields: [],
            hasPassword: false,
          };
          forms.push(form);
        } else if (name === 'input') add(inputOf(attributes));
        else if (name === 'button' && attributes.name)
          add(field(attributes.name, (attributes.type ?? 'submit').toLowerCase(), attributes.value ?? ''));
        else if (name === 'textarea' && attributes.name && form) {
          open.textarea = field(attributes.name, 'textarea', '');
          add(open.textarea);
        } else if (name === 'select' && attributes.name && form) {
          open.select = { field: field(attributes.name, 'select', '') };
          add(open.select.field);
        } else if (name === 'option' && open.select) {
          endOption(open);
          open.option = { value: attributes.value, text: '', selected: 'selected' in attributes };
        }
      },
      ontext(text) {
        if (open.textarea) open.textarea.value += text;
        else if (open.option) open.option.text += text;
      },
      onclosetag(name) {
        if (name === 'form') {
          endSelect(open);
          form = undefined;
        } else if (name === 'textarea') open.textarea = undefined;
        else if (name === 'option') endOption(open);
        else if (name === 'select') {
          endOption(open);
          endSelect(open);
        }
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  endSelect(open);
  return forms;
}

/** The login form: the one holding every configured field, else the one with a password field, else the only form. */
export function chooseLoginForm(forms: readonly ParsedForm[], names: readonly string[]): ParsedForm | undefined {
  const holdsAll = forms.filter((form) => names.every((name) => form.fields.some((f) => f.name === name)));
  if (holdsAll.length > 0) return holdsAll.find((form) => form.hasPassword) ?? holdsAll[0];
  const withPassword = forms.filter((form) => form.hasPassword);
  if (withPassword.length === 1) return withPassword[0];
  return forms.length === 1 ? forms[0] : undefined;
}

/** The fields a browser sends with the form (its first submit button included), then the configured ones over them. */
export function formPayload(form: ParsedForm, configured: Readonly<Record<string, string>>): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  let submitted = false;
  for (const f of form.fields) {
    if (f.type === 'submit' || f.type === 'image') {
      if (!submitted && f.name) pairs.push([f.name, f.value]);
      submitted = true;
      continue;
    }
    if (f.type === 'button' || f.type === 'reset' || f.type === 'file' || !f.checked) continue;
    if (Object.hasOwn(configured, f.name)) continue;
    pairs.push([f.name, f.value]);
  }
  for (const [name, value] of Object.entries(configured)) pairs.push([name, value]);
  return pairs;
}
