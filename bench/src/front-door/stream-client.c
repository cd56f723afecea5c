// A load client for paced streams, for the front-door bench: wrk times a response to its end, and a stream
// held back in a balancer still ends on time, so this times each stream's first event. C, one thread,
// epoll, keep-alive: `stream-client PORT CONNECTIONS SECONDS MODEL` holds CONNECTIONS connections to
// 127.0.0.1:PORT, each sending streamed chat completions one after another for SECONDS, and prints one JSON
// line: streams completed, events received, failures, and the time to the first event (p50, p99).
// Built by the bench with `gcc -O2`; never shipped.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct stream {
  int fd;
  long long sent_us;
  int head_done, first_seen;
  /* The last bytes read: enough to find the header's end and the last chunk across reads. */
  char tail[8];
  size_t tail_len;
  char prev;
};

static struct sockaddr_in target;
static char request[1024];
static size_t request_len;
static long long *firsts;
static size_t firsts_len, firsts_cap;
static long long streams, events, failures;

static long long now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static int open_and_send(struct stream *s, int poll) {
  s->fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(s->fd, (struct sockaddr *)&target, sizeof target) != 0) return -1;
  struct epoll_event watch = {.events = EPOLLIN, .data.ptr = s};
  epoll_ctl(poll, EPOLL_CTL_ADD, s->fd, &watch);
  return 0;
}

static int send_request(struct stream *s) {
  s->head_done = s->first_seen = 0;
  s->tail_len = 0;
  s->prev = 0;
  s->sent_us = now_us();
  return write(s->fd, request, request_len) == (ssize_t)request_len ? 0 : -1;
}

static void keep_first(long long us) {
  if (firsts_len == firsts_cap) {
    firsts_cap = firsts_cap == 0 ? 65536 : firsts_cap * 2;
    firsts = realloc(firsts, firsts_cap * sizeof *firsts);
  }
  firsts[firsts_len++] = us;
}

/** Reads what arrived; returns 1 when the stream ended, 0 when more is to come, -1 on a failure. */
static int on_readable(struct stream *s) {
  char buffer[65536];
  ssize_t n = read(s->fd, buffer, sizeof buffer);
  if (n <= 0) return -1;
  size_t start = 0;
  if (!s->head_done) {
    /* The status line and headers arrive whole in the first read from a balancer or the stand-in. */
    if (strncmp(buffer, "HTTP/1.1 200", 12) != 0) return -1;
    char *end = memmem(buffer, (size_t)n, "\r\n\r\n", 4);
    if (end == NULL) return -1;
    s->head_done = 1;
    start = (size_t)(end - buffer) + 4;
  }
  for (size_t i = start; i < (size_t)n; i++) {
    char c = buffer[i];
    if (c == '\n' && s->prev == '\n') {
      if (!s->first_seen) {
        s->first_seen = 1;
        keep_first(now_us() - s->sent_us);
      }
      events += 1;
    }
    s->prev = c;
    if (s->tail_len == sizeof s->tail) memmove(s->tail, s->tail + 1, --s->tail_len);
    s->tail[s->tail_len++] = c;
  }
  /* The last chunk of a chunked body: "\r\n0\r\n\r\n". */
  if (s->tail_len >= 7 && memcmp(s->tail + s->tail_len - 7, "\r\n0\r\n\r\n", 7) == 0) {
    events -= 1; /* [DONE] is not a token */
    streams += 1;
    return 1;
  }
  return 0;
}

static int by_value(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

static long long percentile(double p) {
  if (firsts_len == 0) return 0;
  size_t at = (size_t)(p * (double)(firsts_len - 1) + 0.5);
  return firsts[at];
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: stream-client PORT CONNECTIONS SECONDS MODEL\n");
    return 2;
  }
  int connections = atoi(argv[2]);
  long long until = now_us() + atoll(argv[3]) * 1000000;
  target.sin_family = AF_INET;
  target.sin_port = htons((uint16_t)atoi(argv[1]));
  inet_pton(AF_INET, "127.0.0.1", &target.sin_addr);
  char body[512];
  int body_len = snprintf(body, sizeof body,
                          "{\"model\":\"%s\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":16,"
                          "\"stream\":true}",
                          argv[4]);
  request_len = (size_t)snprintf(request, sizeof request,
                                 "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                                 "application/json\r\nContent-Length: %d\r\n\r\n%s",
                                 body_len, body);

  int poll = epoll_create1(0);
  struct stream *all = calloc((size_t)connections, sizeof *all);
  long long started = now_us();
  for (int i = 0; i < connections; i++) {
    if (open_and_send(&all[i], poll) != 0 || send_request(&all[i]) != 0) {
      fprintf(stderr, "stream-client: cannot connect to port %s\n", argv[1]);
      return 1;
    }
  }
  struct epoll_event ready[256];
  int open = connections;
  while (open > 0) {
    int count = epoll_wait(poll, ready, 256, 1000);
    long long now = now_us();
    for (int i = 0; i < count; i++) {
      struct stream *s = ready[i].data.ptr;
      int state = on_readable(s);
      if (state == 0) continue;
      if (state < 0) {
        failures += 1;
        close(s->fd);
        if (now < until && open_and_send(s, poll) == 0 && send_request(s) == 0) continue;
      } else if (now < until && send_request(s) == 0) {
        continue;
      } else {
        close(s->fd);
      }
      open -= 1;
    }
  }
  long long duration = now_us() - started;
  qsort(firsts, firsts_len, sizeof *firsts, by_value);
  printf("{\"streams\":%lld,\"events\":%lld,\"failures\":%lld,\"durationUs\":%lld,\"firstP50Us\":%lld,"
         "\"firstP99Us\":%lld}\n",
         streams, events, failures, duration, percentile(0.50), percentile(0.99));
  return 0;
}
