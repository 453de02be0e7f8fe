import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Factory = ReturnType<typeof SerializerSelector>;

/**
 * Fastify's response serializers, one for each distinct schema instead of one for each route and
 * status. Fastify compiles a serializer for every status of every route at start: some 460 here,
 * most of them for the same error body. Each keeps its generated source, and one whose schema
 * holds a union (the error body's ban does) builds an Ajv instance of its own, all of it in every
 * process. Two schemas that are the same JSON give the same output, so they share a serializer.
 */
export function sharedSerializers(): Factory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    const made = new Map<string, ReturnType<typeof compile>>();
    return (route) => {
      const key = JSON.stringify(route.schema);
      let serializer = made.get(key);
      if (!serializer) {
        serializer = compile(route);
        made.set(key, serializer);
      }
      return serializer;
    };
  };
}
