// `$jsonSchema` as mongod implements it (draft 4 with `bsonType`, without `$ref`, `format`,
// `default`, `definitions`, and `integer` as a type): a schema is checked once, when compiled, and
// a document is then evaluated into the list of rules it does not satisfy, shaped as mongod's
// `errInfo.details.schemaRulesNotSatisfied` (empty: the document matches). mingo's `$jsonSchema`
// query operator and collection validators (validation.ts) both use it. No npm JSON Schema
// library speaks `bsonType` or reports mongod's shape, so the evaluator is the engine's own.

import { failedToParse } from './errors.js';
import { compileQueryRegex } from './pcre.js';
import { compareValues, type Document, isNumeric, isPlainObject, typeName, valuesEqual } from './values.js';

const BSON_TYPES = new Set([
  'double',
  'string',
  'object',
  'array',
  'binData',
  'undefined',
  'objectId',
  'bool',
  'date',
  'null',
  'regex',
  'dbPointer',
  'javascript',
  'symbol',
  'javascriptWithScope',
  'int',
  'timestamp',
  'long',
  'decimal',
  'minKey',
  'maxKey',
  'number',
]);
const JSON_TYPES = new Set(['object', 'array', 'number', 'boolean', 'string', 'null']);
const NUMBER_TYPES = new Set(['int', 'long', 'double', 'decimal']);
const KEYWORDS = new Set([
  'bsonType',
  'type',
  'required',
  'properties',
  'additionalProperties',
  'patternProperties',
  'minProperties',
  'maxProperties',
  'dependencies',
  'items',
  'additionalItems',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'enum',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'title',
  'description',
]);
const UNSUPPORTED = new Set(['$ref', '$schema', 'default', 'definitions', 'format', 'id']);

/** Refuses a schema mongod would not accept (FailedToParse, as mongod's parser). */
export function checkJsonSchema(schema: unknown): asserts schema is Document {
  if (!isPlainObject(schema)) throw failedToParse('$jsonSchema must be an object');
  for (const [keyword, value] of Object.entries(schema)) {
    if (UNSUPPORTED.has(keyword))
      throw failedToParse(`$jsonSchema keyword '${keyword}' is not currently supported`);
    if (!KEYWORDS.has(keyword)) throw failedToParse(`Unknown $jsonSchema keyword: ${keyword}`);
    if (keyword === 'type' || keyword === 'bsonType') {
      const known = keyword === 'type' ? JSON_TYPES : BSON_TYPES;
      for (const name of Array.isArray(value) ? value : [value]) {
        if (typeof name !== 'string' || !known.has(name)) {
          throw failedToParse(`Unknown type name alias: ${String(name)}`);
        }
      }
    }
    if (keyword === 'properties' || keyword === 'patternProperties') {
      if (!isPlainObject(value)) throw failedToParse(`$jsonSchema keyword '${keyword}' must be an object`);
      for (const sub of Object.values(value)) checkJsonSchema(sub);
    }
    if (keyword === 'items' || keyword === 'allOf' || keyword === 'anyOf' || keyword === 'oneOf') {
      for (const sub of Array.isArray(value) ? value : [value]) checkJsonSchema(sub);
    }
    if (keyword === 'not') checkJsonSchema(value);
    if (keyword === 'required' && (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))) {
      throw failedToParse("$jsonSchema keyword 'required' must be an array of strings");
    }
  }
}

/** The rules of `schema` that `value` does not satisfy, as mongod reports them (empty: it matches). */
export function schemaRulesNotSatisfied(schema: Document, value: unknown): Document[] {
  const failures: Document[] = [];
  const type = typeName(value);
  for (const [keyword, spec] of Object.entries(schema)) {
    const failure = checkKeyword(schema, keyword, spec, value, type);
    if (failure) failures.push(failure);
  }
  return failures;
}

function matchesType(keyword: string, spec: unknown, type: string): boolean {
  const names = (Array.isArray(spec) ? spec : [spec]) as string[];
  return names.some((name) => {
    if (name === 'number') return NUMBER_TYPES.has(type);
    if (keyword === 'type' && name === 'boolean') return type === 'bool';
    return name === type;
  });
}

function checkKeyword(
  schema: Document,
  keyword: string,
  spec: unknown,
  value: unknown,
  type: string,
): Document | undefined {
  const specifiedAs = { [keyword]: spec };
  const failed = (reason: string, extra: Document = {}): Document => ({
    operatorName: keyword,
    specifiedAs,
    reason,
    ...extra,
  });
  const isNumber = NUMBER_TYPES.has(type);
  switch (keyword) {
    case 'bsonType':
    case 'type':
      return matchesType(keyword, spec, type)
        ? undefined
        : failed('type did not match', { consideredValue: value, consideredType: type });
    case 'required': {
      if (!isPlainObject(value)) return undefined;
      const missingProperties = (spec as string[]).filter((name) => !Object.hasOwn(value, name));
      return missingProperties.length === 0
        ? undefined
        : { operatorName: 'required', specifiedAs, missingProperties };
    }
    case 'properties': {
      if (!isPlainObject(value)) return undefined;
      const propertiesNotSatisfied: Document[] = [];
      for (const [propertyName, sub] of Object.entries(spec as Document)) {
        if (!Object.hasOwn(value, propertyName)) continue;
        const details = schemaRulesNotSatisfied(sub as Document, value[propertyName]);
        if (details.length === 0) continue;
        const description = (sub as Document).description;
        propertiesNotSatisfied.push({
          propertyName,
          ...(description !== undefined && { description }),
          details,
        });
      }
      return propertiesNotSatisfied.length === 0
        ? undefined
        : { operatorName: 'properties', propertiesNotSatisfied };
    }
    case 'patternProperties': {
      if (!isPlainObject(value)) return undefined;
      const propertiesNotSatisfied: Document[] = [];
      for (const [pattern, sub] of Object.entries(spec as Document)) {
        const regex = compileQueryRegex(pattern, '');
        for (const propertyName of Object.keys(value).filter((k) => regex.test(k))) {
          const details = schemaRulesNotSatisfied(sub as Document, value[propertyName]);
          if (details.length > 0)
            propertiesNotSatisfied.push({ propertyName, regexMatched: pattern, details });
        }
      }
      return propertiesNotSatisfied.length === 0
        ? undefined
        : { operatorName: 'patternProperties', propertiesNotSatisfied };
    }
    case 'additionalProperties': {
      if (!isPlainObject(value)) return undefined;
      const declared = new Set(Object.keys(isPlainObject(schema.properties) ? schema.properties : {}));
      const patterns = Object.keys(
        isPlainObject(schema.patternProperties) ? schema.patternProperties : {},
      ).map((p) => compileQueryRegex(p, ''));
      const extra = Object.keys(value).filter((k) => !declared.has(k) && !patterns.some((p) => p.test(k)));
      if (spec === false) {
        return extra.length === 0
          ? undefined
          : { operatorName: 'additionalProperties', specifiedAs, additionalProperties: extra };
      }
      if (!isPlainObject(spec)) return undefined;
      const notSatisfied = extra.flatMap((propertyName) => {
        const details = schemaRulesNotSatisfied(spec, value[propertyName]);
        return details.length === 0 ? [] : [{ propertyName, details }];
      });
      return notSatisfied.length === 0
        ? undefined
        : { operatorName: 'additionalProperties', propertiesNotSatisfied: notSatisfied };
    }
    case 'minProperties':
    case 'maxProperties': {
      if (!isPlainObject(value)) return undefined;
      const count = Object.keys(value).length;
      const ok = keyword === 'minProperties' ? count >= Number(spec) : count <= Number(spec);
      return ok
        ? undefined
        : failed('specified number of properties was not satisfied', { numberOfProperties: count });
    }
    case 'dependencies': {
      if (!isPlainObject(value)) return undefined;
      for (const [property, dependency] of Object.entries(spec as Document)) {
        if (!Object.hasOwn(value, property)) continue;
        if (Array.isArray(dependency)) {
          const missingProperties = (dependency as string[]).filter((name) => !Object.hasOwn(value, name));
          if (missingProperties.length > 0) {
            return {
              operatorName: 'dependencies',
              failingDependencies: [{ conditionalProperty: property, missingProperties }],
            };
          }
        } else if (isPlainObject(dependency)) {
          const details = schemaRulesNotSatisfied(dependency, value);
          if (details.length > 0) {
            return {
              operatorName: 'dependencies',
              failingDependencies: [{ conditionalProperty: property, details }],
            };
          }
        }
      }
      return undefined;
    }
    case 'items': {
      if (!Array.isArray(value)) return undefined;
      const schemas = Array.isArray(spec) ? (spec as Document[]) : undefined;
      for (let itemIndex = 0; itemIndex < value.length; itemIndex++) {
        const sub = schemas ? schemas[itemIndex] : (spec as Document);
        if (!sub) break;
        const details = schemaRulesNotSatisfied(sub, value[itemIndex]);
        if (details.length > 0) {
          return {
            operatorName: 'items',
            reason: 'At least one item did not match the sub-schema',
            itemIndex,
            details,
          };
        }
      }
      return undefined;
    }
    case 'additionalItems': {
      if (!Array.isArray(value) || !Array.isArray(schema.items)) return undefined;
      const extra = value.slice(schema.items.length);
      if (spec === false) {
        return extra.length === 0 ? undefined : failed('found additional items', { additionalItems: extra });
      }
      return undefined;
    }
    case 'minItems':
    case 'maxItems': {
      if (!Array.isArray(value)) return undefined;
      const ok = keyword === 'minItems' ? value.length >= Number(spec) : value.length <= Number(spec);
      return ok ? undefined : failed('array did not match specified length', { consideredValue: value });
    }
    case 'uniqueItems': {
      if (!Array.isArray(value) || spec !== true) return undefined;
      for (let i = 0; i < value.length; i++) {
        for (let j = 0; j < i; j++) {
          if (valuesEqual(value[i], value[j]))
            return failed('found a duplicate item', { duplicatedValue: value[i] });
        }
      }
      return undefined;
    }
    case 'minimum':
    case 'maximum': {
      if (!isNumber) return undefined;
      const c = compareValues(value, spec);
      const exclusive = schema[keyword === 'minimum' ? 'exclusiveMinimum' : 'exclusiveMaximum'] === true;
      const ok = keyword === 'minimum' ? (exclusive ? c > 0 : c >= 0) : exclusive ? c < 0 : c <= 0;
      return ok ? undefined : failed('comparison failed', { consideredValue: value });
    }
    case 'multipleOf': {
      if (!isNumber || !isNumeric(spec)) return undefined;
      const remainder = Number(value) % Number(spec);
      return remainder === 0
        ? undefined
        : failed('considered value is not a multiple of the specified value', { consideredValue: value });
    }
    case 'minLength':
    case 'maxLength': {
      if (typeof value !== 'string') return undefined;
      const length = [...value].length;
      const ok = keyword === 'minLength' ? length >= Number(spec) : length <= Number(spec);
      return ok ? undefined : failed('specified string length was not satisfied', { consideredValue: value });
    }
    case 'pattern':
      if (typeof value !== 'string') return undefined;
      return compileQueryRegex(String(spec), '').test(value)
        ? undefined
        : failed('regular expression did not match', { consideredValue: value });
    case 'enum':
      return (spec as unknown[]).some((v) => valuesEqual(v, value))
        ? undefined
        : failed('value was not found in enum', { consideredValue: value });
    case 'allOf':
    case 'anyOf':
    case 'oneOf': {
      const results = (spec as Document[]).map((sub) => schemaRulesNotSatisfied(sub, value));
      const schemasNotSatisfied = results.flatMap((details, index) =>
        details.length > 0 ? [{ index, details }] : [],
      );
      const matching = results.length - schemasNotSatisfied.length;
      if (keyword === 'allOf') {
        return matching === results.length ? undefined : { operatorName: keyword, schemasNotSatisfied };
      }
      if (keyword === 'anyOf')
        return matching > 0 ? undefined : { operatorName: keyword, schemasNotSatisfied };
      if (matching === 1) return undefined;
      if (matching === 0) return { operatorName: keyword, schemasNotSatisfied };
      const matchingSchemaIndexes = results.flatMap((details, index) =>
        details.length === 0 ? [index] : [],
      );
      return { operatorName: keyword, reason: 'more than one subschema matched', matchingSchemaIndexes };
    }
    case 'not':
      return schemaRulesNotSatisfied(spec as Document, value).length > 0
        ? undefined
        : { operatorName: 'not', specifiedAs, reason: 'child expression matched' };
    default:
      // title, description, exclusiveMinimum/Maximum (read with minimum/maximum): no rule of their own.
      return undefined;
  }
}
