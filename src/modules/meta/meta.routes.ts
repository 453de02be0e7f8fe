import { Type } from 'typebox';
import type { TypedApp } from '../../core/typed-app.ts';
import type { RouteIndex } from '../../core/route-index.ts';
import { errors } from '../../core/schemas.ts';
import { API_VERSION } from '../../version.ts';

const ApiInfo = Type.Object({
  name: Type.String(),
  version: Type.String({ description: 'API version; separate from the service version in /api/public/status' }),
  description: Type.String(),
  endpoints: Type.Record(Type.String(), Type.String(), { description: 'Every endpoint: "METHOD /path" -> what it does' }),
  usage: Type.String(),
});

const Methods = Type.Object({
  methods: Type.Array(Type.String(), { description: 'Every HTTP method the API accepts somewhere' }),
  paths: Type.Record(Type.String(), Type.Array(Type.String()), { description: 'Path -> the methods it accepts' }),
});

export function metaRoutes(app: TypedApp, index: RouteIndex): void {
  app.get(
    '/api',
    {
      schema: { summary: 'API info: name, version and every endpoint', tags: ['meta'], response: { 200: ApiInfo, ...errors(401, 429) } },
    },
    async () => ({
      name: 'imageboard',
      version: API_VERSION,
      description: 'An image and video board: posts, tags, pools, users, comments, uploads and API keys',
      endpoints: Object.fromEntries(index.routes.map((r) => [index.label(r), r.summary])),
      usage: 'See /api/docs for detailed documentation (OpenAPI document at /api/openapi.json)',
    }),
  );

  app.get(
    '/api/methods',
    {
      schema: { summary: 'Supported HTTP methods, overall and per path', tags: ['meta'], response: { 200: Methods, ...errors(401, 429) } },
    },
    async () => {
      const paths: Record<string, Set<string>> = {};
      for (const r of index.routes) {
        const label = r.url.replace(/:(\w+)/g, '<$1>');
        (paths[label] ??= new Set()).add(r.method);
        if (r.method === 'GET') paths[label].add('HEAD');
      }
      const all = new Set(Object.values(paths).flatMap((s) => [...s]));
      return {
        methods: [...all].sort(),
        paths: Object.fromEntries(Object.entries(paths).map(([p, s]) => [p, [...s].sort()])),
      };
    },
  );
}
