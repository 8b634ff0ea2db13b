/* The stdio floor of bench/compare.sh: the least an MCP server over stdio
 * can do. It reads newline-delimited JSON-RPC on stdin and answers every
 * request with one write(2) of a fixed, minimal, valid reply carrying the
 * request's id:
 *   initialize  -> protocolVersion 2025-11-25, the tools capability
 *   tools/call  -> {"content":[{"type":"text","text":"ok"}]}
 *   anything else with an id (ping, tools/list, ...) -> an empty result
 * Notifications (no id) get nothing. It exits 0 at the end of input.
 *
 * It does not parse JSON: the id is the first top-level-looking "id": token
 * and the method the first "method": string, which is right for the
 * messages a client such as time-tracker-bench sends. A floor, not a server.
 *
 * Build: cc -O2 -o echo_stdio echo_stdio.c (bench/peers/install.sh does).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_all(const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(STDOUT_FILENO, p, n);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* The value after `"key":` (spaces skipped), or NULL. */
static const char *value_of(const char *line, const char *key) {
  const char *p = strstr(line, key);
  if (!p)
    return NULL;
  p += strlen(key);
  while (*p == ' ' || *p == '\t')
    ++p;
  if (*p != ':')
    return NULL;
  ++p;
  while (*p == ' ' || *p == '\t')
    ++p;
  return p;
}

/* Length of the JSON scalar at p: a number, a string, or null. */
static size_t scalar_len(const char *p) {
  const char *q = p;
  if (*q == '"') {
    for (++q; *q && *q != '"'; ++q)
      if (*q == '\\' && q[1])
        ++q;
    return *q == '"' ? (size_t)(q - p + 1) : 0;
  }
  while (*q && *q != ',' && *q != '}' && *q != ' ' && *q != '\n')
    ++q;
  return (size_t)(q - p);
}

int main(void) {
  static const char init_result[] =
    "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},"
    "\"serverInfo\":{\"name\":\"echo-stdio\",\"version\":\"1\"}}";
  static const char call_result[] =
    "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}";
  static const char empty_result[] = "{}";

  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  char *out = NULL;
  size_t out_cap = 0;
  while ((len = getline(&line, &cap, stdin)) > 0) {
    const char *id = value_of(line, "\"id\"");
    if (!id)
      continue; /* a notification, or not JSON-RPC: nothing to say */
    size_t id_len = scalar_len(id);
    if (id_len == 0)
      continue;
    const char *method = value_of(line, "\"method\"");
    const char *result = empty_result;
    if (method && strncmp(method, "\"initialize\"", 12) == 0)
      result = init_result;
    else if (method && strncmp(method, "\"tools/call\"", 12) == 0)
      result = call_result;
    size_t need = id_len + strlen(result) + 64;
    if (need > out_cap) {
      out_cap = need * 2;
      out = realloc(out, out_cap);
      if (!out)
        return 1;
    }
    int n = snprintf(out, out_cap, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"result\":%s}\n",
                     (int)id_len, id, result);
    if (n < 0 || write_all(out, (size_t)n) != 0)
      return 1;
  }
  free(line);
  free(out);
  return 0;
}
