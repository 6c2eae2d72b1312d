/*
 * pagejson's re-exec: execve(2), which Node 20 does not expose (Node 22.15 and 23.11 have process.execve).
 *
 * Some V8 settings can only be given on Node's command line, before the heap exists: the daemon's young
 * generation is one (src/cli/daemon-flags.ts). `pagejson serve` started without it replaces itself with the
 * same command plus the flag. execve keeps the process: its id (what a supervisor watches), its open standard
 * streams, its environment as given; the old image, every thread of it, is gone.
 */
#include <node_api.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *copy_string(napi_env env, napi_value value) {
  size_t length = 0;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) return NULL;
  char *text = malloc(length + 1);
  if (text == NULL) return NULL;
  napi_get_value_string_utf8(env, value, text, length + 1, &length);
  return text;
}

static void free_list(char **list) {
  if (list == NULL) return;
  for (char **item = list; *item != NULL; item += 1) free(*item);
  free(list);
}

/* A JavaScript array of strings as a NULL-terminated C array; NULL if it is not one. */
static char **copy_list(napi_env env, napi_value array) {
  bool is_array = false;
  uint32_t count = 0;
  if (napi_is_array(env, array, &is_array) != napi_ok || !is_array) return NULL;
  napi_get_array_length(env, array, &count);
  char **list = calloc(count + 1, sizeof(char *));
  if (list == NULL) return NULL;
  for (uint32_t index = 0; index < count; index += 1) {
    napi_value item;
    napi_get_element(env, array, index, &item);
    list[index] = copy_string(env, item);
    if (list[index] == NULL) {
      free_list(list);
      return NULL;
    }
  }
  return list;
}

/* execve(file, args, environment): returns only on failure, throwing an Error that says why. */
static napi_value Execve(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 3) {
    napi_throw_type_error(env, NULL, "execve(file, args, environment) takes three arguments");
    return NULL;
  }
  char *file = copy_string(env, argv[0]);
  char **args = copy_list(env, argv[1]);
  char **environment = copy_list(env, argv[2]);
  if (file == NULL || args == NULL || environment == NULL) {
    free(file);
    free_list(args);
    free_list(environment);
    napi_throw_type_error(env, NULL, "execve takes a path, an array of arguments and an array of NAME=value strings");
    return NULL;
  }
  /* Node opens its standard streams close-on-exec: the new image must keep them (they are where it logs, and
     the pipe a supervisor or a script reads). */
  for (int fd = 0; fd <= 2; fd += 1) {
    int flags = fcntl(fd, F_GETFD);
    if (flags != -1) fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
  }
  /* A signal blocked now would stay blocked in the new image: start it with none. */
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  execve(file, args, environment);
  int error = errno;
  free(file);
  free_list(args);
  free_list(environment);
  napi_throw_error(env, NULL, strerror(error));
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value execve_function;
  napi_create_function(env, "execve", NAPI_AUTO_LENGTH, Execve, NULL, &execve_function);
  napi_set_named_property(env, exports, "execve", execve_function);
  return exports;
}
