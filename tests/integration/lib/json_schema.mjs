// A small JSON Schema validator for the subset the server's tool schemas use,
// independent of the SDK (which validates with ajv) so that a reply is
// checked by two implementations.
//
// Supported: type (a name or a list such as ["string", "null"]), properties,
// required, additionalProperties (boolean or schema), items (one schema),
// anyOf, enum, minLength, maxLength, minItems, maxItems, maxProperties,
// and $ref to a `#/$defs/NAME` of the root (issue 19's compacted output
// schemas; `$defs` only at the root); the annotations description, default
// and title are ignored. Any other keyword
// makes makeValidator() throw: a schema this module does not understand must
// fail the test loudly, never be half-checked.
import { isDeepStrictEqual } from 'node:util';

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean', 'null']);
const ANNOTATIONS = new Set(['description', 'default', 'title']);
const KEYWORDS = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'anyOf', 'enum',
  'minLength', 'maxLength', 'minItems', 'maxItems', 'maxProperties', '$ref',
]);

/** The JSON type of a parsed JSON value ("integer" for whole numbers). */
export function jsonType(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value; // string, boolean, object
}

function hasType(value, type) {
  const actual = jsonType(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

function isPlainObject(value) {
  return jsonType(value) === 'object';
}

function isCount(value) {
  return Number.isInteger(value) && value >= 0;
}

function compile(schema, where, closed, root = schema) {
  if (!isPlainObject(schema)) throw new Error(`${where}: a schema must be an object`);
  for (const key of Object.keys(schema)) {
    if (!KEYWORDS.has(key) && !ANNOTATIONS.has(key) && !(key === '$defs' && schema === root)) {
      throw new Error(`${where}: unsupported JSON Schema keyword "${key}"`);
    }
  }
  const checks = [];

  if ('$ref' in schema) {
    const ref = schema.$ref;
    const name = typeof ref === 'string' && ref.startsWith('#/$defs/') ? ref.slice('#/$defs/'.length) : null;
    const target = name !== null && isPlainObject(root.$defs) ? root.$defs[name] : undefined;
    if (!isPlainObject(target)) throw new Error(`${where}: "$ref" ${JSON.stringify(ref)} names no #/$defs entry`);
    const sub = compile(target, `#/$defs/${name}`, closed, root);
    checks.push((value, path, errors) => {
      sub(value, path, errors);
      return true;
    });
  }

  if ('type' in schema) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (types.length === 0 || !types.every((t) => TYPES.has(t))) {
      throw new Error(`${where}: bad "type" ${JSON.stringify(schema.type)}`);
    }
    checks.push((value, path, errors) => {
      if (!types.some((t) => hasType(value, t))) {
        errors.push(`${path}: expected ${types.join(' or ')}, got ${jsonType(value)} ${JSON.stringify(value)}`);
        return false; // the other checks assume the right type
      }
      return true;
    });
  }

  if ('enum' in schema) {
    if (!Array.isArray(schema.enum) || schema.enum.length === 0) throw new Error(`${where}: bad "enum"`);
    const allowed = schema.enum;
    checks.push((value, path, errors) => {
      if (!allowed.some((a) => isDeepStrictEqual(a, value))) {
        errors.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(allowed)}`);
      }
      return true;
    });
  }

  for (const [keyword, test, message] of [
    ['minLength', (v, n) => typeof v !== 'string' || [...v].length >= n, 'shorter than'],
    ['maxLength', (v, n) => typeof v !== 'string' || [...v].length <= n, 'longer than'],
    ['minItems', (v, n) => !Array.isArray(v) || v.length >= n, 'fewer items than'],
    ['maxItems', (v, n) => !Array.isArray(v) || v.length <= n, 'more items than'],
    ['maxProperties', (v, n) => !isPlainObject(v) || Object.keys(v).length <= n, 'more properties than'],
  ]) {
    if (!(keyword in schema)) continue;
    const limit = schema[keyword];
    if (!isCount(limit)) throw new Error(`${where}: bad "${keyword}"`);
    checks.push((value, path, errors) => {
      if (!test(value, limit)) errors.push(`${path}: ${message} ${limit}`);
      return true;
    });
  }

  if ('required' in schema) {
    if (!Array.isArray(schema.required) || !schema.required.every((k) => typeof k === 'string')) {
      throw new Error(`${where}: bad "required"`);
    }
    const required = schema.required;
    checks.push((value, path, errors) => {
      if (!isPlainObject(value)) return true;
      for (const key of required) {
        if (!Object.hasOwn(value, key)) errors.push(`${path}: missing required property "${key}"`);
      }
      return true;
    });
  }

  const properties = new Map();
  if ('properties' in schema) {
    if (!isPlainObject(schema.properties)) throw new Error(`${where}: bad "properties"`);
    for (const [key, sub] of Object.entries(schema.properties)) {
      properties.set(key, compile(sub, `${where}/properties/${key}`, closed, root));
    }
  }
  let additional = null; // null: anything goes; false: nothing; else a validator
  if ('additionalProperties' in schema) {
    const ap = schema.additionalProperties;
    if (ap === false) additional = false;
    else if (ap !== true) additional = compile(ap, `${where}/additionalProperties`, closed, root);
  } else if (closed && 'properties' in schema) {
    additional = false;
  }
  if (properties.size > 0 || additional !== null) {
    checks.push((value, path, errors) => {
      if (!isPlainObject(value)) return true;
      for (const [key, item] of Object.entries(value)) {
        const sub = properties.get(key);
        const itemPath = `${path}.${key}`;
        if (sub) sub(item, itemPath, errors);
        else if (additional === false) errors.push(`${path}: property "${key}" is not declared`);
        else if (additional) additional(item, itemPath, errors);
      }
      return true;
    });
  }

  if ('items' in schema) {
    const items = compile(schema.items, `${where}/items`, closed, root);
    checks.push((value, path, errors) => {
      if (!Array.isArray(value)) return true;
      value.forEach((item, i) => items(item, `${path}[${i}]`, errors));
      return true;
    });
  }

  if ('anyOf' in schema) {
    if (!Array.isArray(schema.anyOf) || schema.anyOf.length === 0) throw new Error(`${where}: bad "anyOf"`);
    // Branches are checked open: "closed" is about declared properties,
    // which anyOf branches here only constrain (required lists).
    const branches = schema.anyOf.map((sub, i) => compile(sub, `${where}/anyOf/${i}`, false, root));
    checks.push((value, path, errors) => {
      const failures = [];
      for (const branch of branches) {
        const branchErrors = [];
        branch(value, path, branchErrors);
        if (branchErrors.length === 0) return true;
        failures.push(branchErrors.join('; '));
      }
      errors.push(`${path}: matches no anyOf branch (${failures.map((f, i) => `#${i}: ${f}`).join(' | ')})`);
      return true;
    });
  }

  const validate = (value, path, errors) => {
    for (const check of checks) {
      if (!check(value, path, errors)) break;
    }
  };
  return validate;
}

/**
 * Compiles `schema` into `validate(value)`, which returns the list of what
 * is wrong with `value` (empty when it is valid), each item "path: problem".
 * Throws when the schema uses a keyword this module does not support.
 *
 * With `closed: true`, an object schema that declares `properties` and says
 * nothing about `additionalProperties` is treated as closed: a key it does
 * not declare is an error. That checks that a reply carries no undeclared
 * field, which plain JSON Schema allows.
 */
export function makeValidator(schema, { closed = false } = {}) {
  const validate = compile(schema, '#', closed);
  return (value) => {
    const errors = [];
    validate(value, '$', errors);
    return errors;
  };
}
