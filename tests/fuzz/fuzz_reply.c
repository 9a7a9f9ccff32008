/* libFuzzer target: a daemon's reply as the SPANK plugin reads it inside slurmstepd (root). The
 * input is what the server sends: it waits in one end of a socket pair, then EOF, and
 * proto_call sends a registration on the other end and reads the reply with the plugin's own
 * framing and parser; the plugin's use of the reply (unit.id) follows. Checks that a success
 * gives an object and a failure a negative errno with a message. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object *req, *reply = NULL, *u, *idv;
	int sv[2], sndbuf = 4 << 20, rc;
	size_t off = 0;
	char err[256] = "";

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	/* all of the reply that fits is queued before the call: no second thread */
	while (off < size) {
		ssize_t w = send(sv[1], data + off, size - off, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (w <= 0)
			break;
		off += (size_t)w;
	}
	shutdown(sv[1], SHUT_WR);

	req = json_object_new_object();
	json_object_object_add(req, "v", json_object_new_int(TRACER_PROTO_VERSION));
	json_object_object_add(req, "op", json_object_new_string("register"));
	json_object_object_add(req, "job_id", json_object_new_int(42));
	rc = proto_call(sv[0], req, 1000, &reply, err, sizeof(err));
	if (rc == 0) {
		if (!reply || !json_object_is_type(reply, json_type_object))
			abort();
		if (json_object_object_get_ex(reply, "unit", &u) &&
		    json_object_object_get_ex(u, "id", &idv))
			(void)json_object_get_int64(idv);
		json_object_put(reply);
	} else if (rc > 0 || !err[0] || rc == -ETIMEDOUT) {
		abort(); /* every reply here ends in EOF: nothing may wait for the deadline */
	}
	json_object_put(req);
	close(sv[0]);
	close(sv[1]);
	return 0;
}
