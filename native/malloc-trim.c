/*
 * malloc_trim(0) for JavaScript: glibc gives memory back to the system only from the top of its
 * heap, so blocks freed between live ones (request buffers, SQLite's, V8's compiler zones) stay
 * resident. malloc_trim also releases the whole free pages among them. Built by
 * scripts/build-native.mjs; loaded by src/core/malloc-trim.ts (docs/benchmarks.md, Memory).
 */
#include <malloc.h>
#include <node_api.h>

/* trim() -> true when some memory was given back. */
static napi_value Trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  napi_get_boolean(env, malloc_trim(0) == 1, &out);
  return out;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, Trim, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", fn) != napi_ok) return NULL;
  return exports;
}
