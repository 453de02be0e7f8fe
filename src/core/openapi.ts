import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { API_VERSION } from '../version.ts';

const DESCRIPTION = `
The image board's REST API. All bodies are JSON (UTF-8) except uploads (multipart).

Conventions:
- Identifiers are opaque strings. Timestamps are ISO 8601 UTC with milliseconds.
- Media and avatar paths are relative paths served by this server (\`/media/...\`).
- Success: 200 for reads, updates and deletes; 201 when something is created.
- Every error is \`{ error, status }\`; validation errors add \`details: [{ field, message }]\`.
- Unknown query parameters and bad values are refused with 400 naming the parameter and what it accepts.
- An unknown route is 404; a known path with the wrong method is 405 with an \`Allow\` header.
`.trim();

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Image board API', version: API_VERSION, description: DESCRIPTION },
      tags: [
        { name: 'meta', description: 'What the API offers' },
        { name: 'posts', description: 'Posts: images and videos with tags' },
        { name: 'tags', description: 'Tags and their counts' },
        { name: 'pools', description: 'Ordered collections of posts' },
        { name: 'users', description: 'Profiles' },
        { name: 'stats', description: 'Statistics and health' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
