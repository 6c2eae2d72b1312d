import { placeholderNames, VARIABLE_NAME_PATTERN, type ApiConfig, type Variable } from '../config/index.js';
import { PagejsonError } from '../shared/index.js';

/**
 * `pagejson edit <apiId> --set variables.<name>.example=…` (and `.pattern`, `.description`), `--set
 * variables.<name>=off`: the variables a config's browser actions type (`"text": "{{ q }}"`, docs/actions.md)
 * are declared here, since they have no place in the URL for `--var` to mark. A variable of the URL is
 * changed the same way and removed with `--unvar`, which puts its example back into the URL.
 */
const PROPERTIES = ['example', 'pattern', 'description'] as const;
type Property = (typeof PROPERTIES)[number];
const OFF = ['off', 'null', 'none'];

function usage(message: string, hint: string): PagejsonError {
  return new PagejsonError('USAGE', message, { hint });
}

function withVariable(config: ApiConfig, name: string, variable: Variable | undefined): ApiConfig {
  // The name comes from outside: set as an own entry (never through a prototype) and only once it matched the pattern.
  const variables: Record<string, Variable> = {};
  for (const [key, value] of Object.entries(config.variables)) if (key !== name) Object.defineProperty(variables, key, own(value));
  if (variable) Object.defineProperty(variables, name, own(variable));
  return { ...config, variables };
}

function own(value: Variable): PropertyDescriptor {
  return { value, enumerable: true, writable: true, configurable: true };
}

function setProperty(name: string, property: Property) {
  return (config: ApiConfig, value: string): ApiConfig => {
    const current = Object.hasOwn(config.variables, name) ? config.variables[name] : undefined;
    if (property === 'example') return withVariable(config, name, { ...current, example: value });
    if (!current)
      throw usage(
        `variables.${name} has no example yet`,
        `write --set variables.${name}.example=<a value> first (in the same command is fine)`,
      );
    const { [property]: _old, ...rest } = current;
    return withVariable(config, name, value === '' ? rest : { ...rest, [property]: value });
  };
}

function removeVariable(name: string) {
  return (config: ApiConfig, value: string): ApiConfig => {
    if (!OFF.includes(value.trim().toLowerCase()))
      throw usage(
        `variables.${name} is set by its parts or removed with off`,
        `write --set variables.${name}.example=<a value>, or --set variables.${name}=off`,
      );
    if (placeholderNames(config.url).includes(name))
      throw usage(`variable "${name}" is part of the URL`, `write --unvar ${name} to put its example back into the URL`);
    return withVariable(config, name, undefined);
  };
}

/** `variables.<name>` and `variables.<name>.<property>`: keys with a name in them. */
export function variableSetter(key: string): ((config: ApiConfig, value: string) => ApiConfig) | undefined {
  const match = /^variables\.([^.]+)(?:\.([^.]+))?$/.exec(key);
  if (!match) return undefined;
  const [, name, property] = match;
  if (!VARIABLE_NAME_PATTERN.test(name!))
    return () => {
      throw usage(`"${name}" is not a variable name`, 'a variable name holds letters, digits and _, starting with a letter or _');
    };
  if (property === undefined) return removeVariable(name!);
  if (!(PROPERTIES as readonly string[]).includes(property))
    return () => {
      throw usage(`variables.${name}.${property}: unknown property`, `a variable has ${PROPERTIES.join(', ')}`);
    };
  return setProperty(name!, property as Property);
}
