/* The OTLP request encoders by format (otlp.h), and gzip of a request body. */
#include <errno.h>
#include <limits.h>
#include <zlib.h>

#include "log.h"
#include "otlp_write.h"

int otlp_encode_traces(enum otlp_format f, const struct otlp_resource *res,
		       const struct otlp_scope *scope, const struct otlp_span *spans, size_t n,
		       struct otlp_buf *out)
{
	if (f == OTLP_JSON)
		return otlp_json_traces(res, scope, spans, n, out);
	if (f == OTLP_PROTOBUF)
		return otlp_pb_traces(res, scope, spans, n, out);
	return -EINVAL;
}

int otlp_encode_logs(enum otlp_format f, const struct otlp_resource *res,
		     const struct otlp_scope *scope, const struct otlp_log *logs, size_t n,
		     struct otlp_buf *out)
{
	if (f == OTLP_JSON)
		return otlp_json_logs(res, scope, logs, n, out);
	if (f == OTLP_PROTOBUF)
		return otlp_pb_logs(res, scope, logs, n, out);
	return -EINVAL;
}

int otlp_gzip(const char *in, size_t len, struct otlp_buf *out)
{
	z_stream z = { 0 };
	struct otlp_w w;
	uLong bound;
	char *room;
	int zrc;

	/* zlib counts in 32 bits; a request body is megabytes, never near that */
	if (len > UINT_MAX / 2)
		return -ENOMEM;
	/* windowBits 15 + 16: a gzip header and trailer around the deflate stream */
	zrc = deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	if (zrc != Z_OK) {
		log_error("deflateInit2: %s", zrc == Z_MEM_ERROR ? "out of memory" : "failed");
		return zrc == Z_MEM_ERROR ? -ENOMEM : -EIO;
	}
	otlp_w_init(&w, out);
	bound = deflateBound(&z, len);
	room = otlp_w_room(&w, bound);
	if (room) {
		z.next_in = (Bytef *)in;
		z.avail_in = (uInt)len;
		z.next_out = (Bytef *)room;
		z.avail_out = (uInt)bound; /* deflateBound's room: one call finishes */
		zrc = deflate(&z, Z_FINISH);
		if (zrc == Z_STREAM_END) {
			out->len += z.total_out;
		} else {
			log_error("deflate of %zu bytes: %d", len, zrc);
			w.err = -EIO;
		}
	}
	deflateEnd(&z);
	return otlp_w_end(&w);
}
