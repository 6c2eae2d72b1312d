/*
 * pagejson's allocator trimmer: two calls into glibc's malloc that Node does not expose.
 *
 * glibc keeps memory a program freed for its own reuse, and gives back to the system only the free space at
 * the top of each heap; a daemon whose short-lived buffers (pages, socket reads) were interleaved with
 * long-lived ones (cached bodies) keeps the high-water mark of every burst. malloc_trim(0) gives back every
 * whole free page, wherever it is (docs/performance.md, "Memory").
 *
 * Elsewhere than glibc (musl, macOS) both calls do nothing: freeBytes() is 0 and trim() is false.
 */
#include <node_api.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* Bytes the allocator holds free (in every arena), as glibc's mallinfo2 counts them. */
static napi_value FreeBytes(napi_env env, napi_callback_info info) {
  double free_bytes = 0;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  struct mallinfo2 stats = mallinfo2();
  free_bytes = (double)stats.fordblks;
#endif
  napi_value result;
  napi_create_double(env, free_bytes, &result);
  return result;
}

/* Gives whole free pages back to the system; true when some memory was released. */
static napi_value Trim(napi_env env, napi_callback_info info) {
  int released = 0;
#if defined(__GLIBC__)
  released = malloc_trim(0);
#endif
  napi_value result;
  napi_get_boolean(env, released != 0, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value free_bytes, trim;
  napi_create_function(env, "freeBytes", NAPI_AUTO_LENGTH, FreeBytes, NULL, &free_bytes);
  napi_create_function(env, "trim", NAPI_AUTO_LENGTH, Trim, NULL, &trim);
  napi_set_named_property(env, exports, "freeBytes", free_bytes);
  napi_set_named_property(env, exports, "trim", trim);
  return exports;
}
