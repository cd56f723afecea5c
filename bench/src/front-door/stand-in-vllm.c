// A fast stand-in for vLLM's OpenAI-compatible server, for the front-door bench: it must never be the limit,
// so it is C, one thread, epoll, HTTP/1.1 keep-alive, and it answers at once. It serves GET /health,
// GET /v1/models (the served name) and POST /v1/chat/completions: a chat.completion, or with "stream": true
// a text/event-stream of STAND_IN_CHUNKS chunks (default 16) and [DONE], all written in one go, or with
// STAND_IN_PACE_MS=N one chunk every N ms (the first at once), as vLLM sends tokens while it generates. It is
// started as `vllm serve MODEL --port P [--host H] [--served-model-name N] ...` (other flags are ignored) and
// ends on SIGTERM, as vLLM does. Built by the bench with `gcc -O2`; never shipped.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_REQUEST 65536
#define MAX_EVENTS 256

struct conn {
  int fd;
  size_t in_len;
  char in[MAX_REQUEST];
  char *out;
  size_t out_len, out_sent;
  /* A paced stream in progress: the chunks still to send (0: none), and when the next one is due. */
  int paced_left;
  long long paced_due_ms;
  struct conn *paced_next;
};

static char served[256] = "model";
static int chunks = 16;
static char models_body[512];
static char json_body[1024];
static char *stream_body;
static size_t stream_len;
static int pace_ms = 0;
static char event_chunk[512];
static size_t event_chunk_len;
static const char done_chunk[] = "e\r\ndata: [DONE]\n\n\r\n0\r\n\r\n";
/* Every connection with a paced stream in progress. */
static struct conn *paced;

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void build_answers(void) {
  snprintf(models_body, sizeof models_body,
           "{\"object\":\"list\",\"data\":[{\"id\":\"%s\",\"object\":\"model\",\"created\":0,\"owned_by\":\"vllm\"}]}",
           served);
  snprintf(json_body, sizeof json_body,
           "{\"id\":\"chatcmpl-stand-in\",\"object\":\"chat.completion\",\"created\":1763820000,\"model\":\"%s\","
           "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hello\"},\"finish_reason\":\"stop\"}],"
           "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1,\"total_tokens\":6}}",
           served);
  // Each server-sent event is one HTTP chunk, as vLLM's server writes each token.
  size_t cap = (size_t)(chunks + 2) * 512;
  stream_body = malloc(cap);
  size_t n = 0;
  char event[400];
  for (int i = 0; i < chunks; i++) {
    int len = snprintf(event, sizeof event,
                       "data: {\"id\":\"chatcmpl-stand-in\",\"object\":\"chat.completion.chunk\",\"created\":1763820000,"
                       "\"model\":\"%s\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok\"},\"finish_reason\":null}]}\n\n",
                       served);
    n += (size_t)sprintf(stream_body + n, "%x\r\n%s\r\n", len, event);
    if (i == 0) event_chunk_len = (size_t)snprintf(event_chunk, sizeof event_chunk, "%x\r\n%s\r\n", len, event);
  }
  n += (size_t)sprintf(stream_body + n, "%x\r\n%s\r\n0\r\n\r\n", 14, "data: [DONE]\n\n");
  stream_len = n;
}

static void answer(struct conn *c, const char *status, const char *type, const char *body, size_t body_len, int chunked) {
  char head[256];
  int head_len = chunked ? snprintf(head, sizeof head,
                                    "HTTP/1.1 %s\r\nContent-Type: %s\r\nTransfer-Encoding: chunked\r\n\r\n", status, type)
                         : snprintf(head, sizeof head, "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n\r\n",
                                    status, type, body_len);
  size_t need = c->out_len + (size_t)head_len + body_len;
  c->out = realloc(c->out, need);
  memcpy(c->out + c->out_len, head, (size_t)head_len);
  memcpy(c->out + c->out_len + head_len, body, body_len);
  c->out_len = need;
}

static void append(struct conn *c, const char *bytes, size_t len) {
  c->out = realloc(c->out, c->out_len + len);
  memcpy(c->out + c->out_len, bytes, len);
  c->out_len += len;
}

/** Starts a paced stream: the head and the first chunk now, the others from the pacing loop. */
static void start_paced(struct conn *c) {
  answer(c, "200 OK", "text/event-stream", event_chunk, event_chunk_len, 1);
  c->paced_left = chunks; /* the other events, then [DONE] */
  c->paced_due_ms = now_ms() + pace_ms;
  c->paced_next = paced;
  paced = c;
}

/** Handles every whole request in the buffer; returns -1 when the connection must close. */
static int handle_requests(struct conn *c) {
  for (;;) {
    if (c->paced_left > 0) return 0; /* the next request waits for the stream to end, as HTTP/1.1 does */
    c->in[c->in_len] = '\0';
    char *end = strstr(c->in, "\r\n\r\n");
    if (end == NULL) return c->in_len >= MAX_REQUEST - 1 ? -1 : 0;
    size_t head_len = (size_t)(end - c->in) + 4;
    size_t body_len = 0;
    for (char *line = strstr(c->in, "\r\n"); line != NULL && line < end; line = strstr(line + 2, "\r\n")) {
      if (strncasecmp(line + 2, "content-length:", 15) == 0) body_len = strtoul(line + 17, NULL, 10);
    }
    if (head_len + body_len >= MAX_REQUEST) return -1;
    if (c->in_len < head_len + body_len) return 0;
    char saved = c->in[head_len + body_len];
    c->in[head_len + body_len] = '\0';
    if (strncmp(c->in, "GET /health ", 12) == 0) {
      answer(c, "200 OK", "application/json", "", 0, 0);
    } else if (strncmp(c->in, "GET /v1/models ", 15) == 0) {
      answer(c, "200 OK", "application/json", models_body, strlen(models_body), 0);
    } else if (strncmp(c->in, "POST /v1/chat/completions ", 26) == 0) {
      const char *body = c->in + head_len;
      if (strstr(body, "\"stream\":true") != NULL || strstr(body, "\"stream\": true") != NULL) {
        if (pace_ms > 0) start_paced(c);
        else answer(c, "200 OK", "text/event-stream", stream_body, stream_len, 1);
      } else {
        answer(c, "200 OK", "application/json", json_body, strlen(json_body), 0);
      }
    } else {
      answer(c, "404 Not Found", "application/json", "{\"detail\":\"Not Found\"}", 22, 0);
    }
    c->in[head_len + body_len] = saved;
    memmove(c->in, c->in + head_len + body_len, c->in_len - head_len - body_len);
    c->in_len -= head_len + body_len;
  }
}

static int flush_out(struct conn *c);

static void forget_paced(struct conn *c) {
  for (struct conn **at = &paced; *at != NULL; at = &(*at)->paced_next) {
    if (*at == c) {
      *at = c->paced_next;
      return;
    }
  }
}

static void close_conn(struct conn *c) {
  if (c->paced_left > 0) forget_paced(c);
  close(c->fd);
  free(c->out);
  free(c);
}

/** Sends every chunk that is due; returns how many ms until the next one (-1: none). */
static int send_due_chunks(void) {
  long long now = now_ms(), next = -1;
  struct conn *c = paced, *following;
  for (; c != NULL; c = following) {
    following = c->paced_next;
    if (c->paced_due_ms <= now) {
      c->paced_left -= 1;
      if (c->paced_left > 0) {
        append(c, event_chunk, event_chunk_len);
        c->paced_due_ms += pace_ms;
      } else {
        append(c, done_chunk, sizeof done_chunk - 1);
        forget_paced(c);
      }
      int failed = flush_out(c) < 0;
      if (!failed && c->paced_left == 0 && c->in_len > 0 && handle_requests(c) < 0) failed = 1;
      if (!failed && flush_out(c) < 0) failed = 1;
      if (failed) {
        close_conn(c);
        continue;
      }
    }
    if (c->paced_left > 0 && (next < 0 || c->paced_due_ms < next)) next = c->paced_due_ms;
  }
  return next < 0 ? -1 : (int)(next > now ? next - now : 0);
}

static int flush_out(struct conn *c) {
  while (c->out_sent < c->out_len) {
    ssize_t n = write(c->fd, c->out + c->out_sent, c->out_len - c->out_sent);
    if (n < 0) return errno == EAGAIN ? 0 : -1;
    c->out_sent += (size_t)n;
  }
  c->out_len = c->out_sent = 0;
  return 0;
}

int main(int argc, char **argv) {
  const char *host = "127.0.0.1";
  int port = 8000;
  const char *model = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) port = atoi(argv[++i]);
    else if (strcmp(argv[i], "--host") == 0 && i + 1 < argc) host = argv[++i];
    else if (strcmp(argv[i], "--served-model-name") == 0 && i + 1 < argc) model = argv[++i];
    else if (strcmp(argv[i], "serve") == 0 && i + 1 < argc && model == NULL) model = argv[++i];
  }
  if (model != NULL) snprintf(served, sizeof served, "%s", model);
  if (getenv("STAND_IN_CHUNKS") != NULL) chunks = atoi(getenv("STAND_IN_CHUNKS"));
  if (getenv("STAND_IN_PACE_MS") != NULL) pace_ms = atoi(getenv("STAND_IN_PACE_MS"));
  build_answers();
  signal(SIGPIPE, SIG_IGN);

  int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (inet_pton(AF_INET, host, &address.sin_addr) != 1 || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 ||
      listen(listener, 4096) != 0) {
    fprintf(stderr, "stand-in: cannot listen on %s:%d: %s\n", host, port, strerror(errno));
    return 1;
  }
  printf("INFO:     Uvicorn running on http://%s:%d (stand-in)\n", host, port);
  fflush(stdout);

  int poll = epoll_create1(0);
  struct epoll_event event = {.events = EPOLLIN, .data.ptr = NULL};
  epoll_ctl(poll, EPOLL_CTL_ADD, listener, &event);
  struct epoll_event ready[MAX_EVENTS];
  for (;;) {
    int count = epoll_wait(poll, ready, MAX_EVENTS, paced == NULL ? -1 : send_due_chunks());
    for (int i = 0; i < count; i++) {
      struct conn *c = ready[i].data.ptr;
      if (c == NULL) {
        int fd;
        while ((fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
          setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          struct conn *fresh = calloc(1, sizeof *fresh);
          fresh->fd = fd;
          struct epoll_event watch = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.ptr = fresh};
          epoll_ctl(poll, EPOLL_CTL_ADD, fd, &watch);
        }
        continue;
      }
      int closing = (ready[i].events & (EPOLLHUP | EPOLLERR)) != 0;
      if (!closing && (ready[i].events & EPOLLIN)) {
        for (;;) {
          ssize_t n = read(c->fd, c->in + c->in_len, MAX_REQUEST - 1 - c->in_len);
          if (n > 0) {
            c->in_len += (size_t)n;
            if (handle_requests(c) < 0) {
              closing = 1;
              break;
            }
            continue;
          }
          if (n == 0 || errno != EAGAIN) closing = 1;
          break;
        }
      }
      if (!closing && flush_out(c) < 0) closing = 1;
      if (closing) close_conn(c);
    }
    if (paced != NULL) send_due_chunks();
  }
}
