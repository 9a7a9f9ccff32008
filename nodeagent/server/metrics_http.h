/* The Prometheus endpoint's HTTP side (MetricsListen): GET /metrics over plain HTTP/1.x,
 * served from the event loop without ever waiting on a scraper. Each connection is bounded:
 * METRICS_SCRAPERS_MAX at once and METRICS_PER_PEER_MAX of one peer (a local user, by the
 * socket's owner, or a remote address: tcp_peer.h) at once, more refused at once, so that a
 * user's idle connections cannot shut the site's scraper out; a request head of at most
 * METRICS_HEAD_MAX bytes whole within METRICS_HEAD_MS, the whole exchange within
 * METRICS_CONN_MS, the reply built once and written as the socket takes it. */
#ifndef TRACER_METRICS_HTTP_H
#define TRACER_METRICS_HTTP_H

#include <json-c/json.h>
#include <stdint.h>

#include "agent.h"
#include "server.h"

#define METRICS_SCRAPERS_MAX 4
#define METRICS_PER_PEER_MAX 1
#define METRICS_HEAD_MAX 8192
#define METRICS_HEAD_MS 3000
#define METRICS_CONN_MS 10000

struct metrics_http;

/* The endpoint on MetricsListen's address (config_metrics_addr), its socket added to epfd.
 * An address that cannot be listened on now (EADDRINUSE: another program holds the port) is
 * said and tried again by metrics_http_retry: 0 either way; -EINVAL (a malformed address) or
 * -ENOMEM, said. While its address is another's (any local user may take a free port first),
 * tracerd runs without the endpoint and tries the address again every retry_ms
 * (MetricsRetryInterval). */
int metrics_http_open(struct metrics_http **out, const char *listen, uint32_t retry_ms, int epfd);
/* Listen, when not listening and retry_ms have passed since the last try (call now and then:
 * the commit tick). m may be NULL (off). */
void metrics_http_retry(struct metrics_http *m);
/* SIGHUP: MetricsRetryInterval's new value, the wait under way included. m may be NULL. */
void metrics_http_set_retry(struct metrics_http *m, uint32_t retry_ms);
/* For tracerctl status: {"enabled"}, and when on {"listen", "listening"}, and while not
 * listening {"error", "tries", "retry_in_ms"}. m may be NULL (off). */
struct json_object *metrics_http_status_json(const struct metrics_http *m);
void metrics_http_close(struct metrics_http *m);
/* Is fd the listener or one of its connections? */
int metrics_http_owns(const struct metrics_http *m, int fd);
/* Readiness of one of its fds; srv: the control server, whose clients the metrics count. */
void metrics_http_handle(struct metrics_http *m, struct agent *a, struct server *srv, int fd,
			 uint32_t events);
/* Close the connections past their time (call now and then, as server_expire). */
void metrics_http_expire(struct metrics_http *m);

#endif
