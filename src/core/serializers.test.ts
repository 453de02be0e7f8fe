import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { errors } from './schemas.ts';
import { sharedSerializers } from './serializers.ts';

const compilerOf = () => sharedSerializers()({}, {});

test('routes whose response schemas are the same JSON share one serializer; others get their own', () => {
  const compile = compilerOf();
  const notFoundA = compile({ method: 'GET', url: '/api/posts/:id', httpStatus: '404', schema: errors(404)[404] });
  const notFoundB = compile({ method: 'GET', url: '/api/pools/:id', httpStatus: '404', schema: errors(404)[404] });
  const conflict = compile({ method: 'POST', url: '/api/reports', httpStatus: '409', schema: errors(409)[409] });
  assert.equal(notFoundA, notFoundB);
  assert.notEqual(notFoundA, conflict);
  const item = Type.Object({ id: Type.String(), count: Type.Integer() });
  const other = Type.Object({ id: Type.String(), count: Type.Number() });
  assert.notEqual(
    compile({ method: 'GET', url: '/a', httpStatus: '200', schema: item }),
    compile({ method: 'GET', url: '/b', httpStatus: '200', schema: other }),
  );
  // Another compiler (another Fastify instance) keeps its own.
  assert.notEqual(compilerOf()({ method: 'GET', url: '/api/posts/:id', httpStatus: '404', schema: errors(404)[404] }), notFoundA);
});

test('a shared serializer writes what its schema says: unknown fields left out, unions kept', () => {
  const serialize = compilerOf()({ method: 'POST', url: '/api/posts', httpStatus: '403', schema: errors(403)[403] });
  const body = JSON.parse(serialize({ error: 'Forbidden', status: 403, ban: { reason: 'spam', until: null }, secret: 'x' }));
  assert.deepEqual(body, { error: 'Forbidden', status: 403, ban: { reason: 'spam', until: null } });
  const until = '2026-12-01T00:00:00.000Z';
  assert.equal(JSON.parse(serialize({ error: 'Forbidden', status: 403, ban: { reason: 'spam', until } })).ban.until, until);
});
