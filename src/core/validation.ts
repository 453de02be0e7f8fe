import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { describeIssue } from './errors.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerceTypes: boolean | 'array'): Ajv {
  // removeAdditional stays off: an unknown parameter or field is an error, never silently dropped.
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false, verbose: true, formats: {} });
  addFormats(ajv);
  return ajv;
}

// Query strings, path parameters and headers arrive as text: coerce them (and a lone `tag=x` into an array).
const textAjv = makeAjv('array');
// JSON bodies carry real types: `"keyId": 5` is a number, not a string, and is refused.
const bodyAjv = makeAjv(false);

export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object) as any;

/** Checks data against a body schema outside HTTP (the CLI); returns the same messages the API gives. */
export function checkBody(schema: object, data: unknown): string[] {
  const validate = bodyAjv.compile(schema);
  if (validate(data)) return [];
  return (validate.errors ?? []).map((e) => describeIssue(e as any, 'body').message);
}

/**
 * API routes that take no query parameters still refuse unknown ones (400 naming them), like every
 * other route: a route without a querystring schema gets an empty, closed one.
 */
export function closeEmptyQueries(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { querystring?: unknown; summary?: string } | undefined;
    if (!route.url.startsWith('/api/') && route.url !== '/api') return;
    if (!schema?.summary || schema.querystring) return;
    schema.querystring = { type: 'object', properties: {}, additionalProperties: false };
  });
}
