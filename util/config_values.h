/* The checks and readings of tracer.conf's values (config.c's): each returns NULL when the
 * value is good, or the reason for the error message. Not for other modules, but for a
 * client's option that takes the same kind of value (a duration). */
#ifndef TRACER_CONFIG_VALUES_H
#define TRACER_CONFIG_VALUES_H

#include <stddef.h>
#include <stdint.h>

/* Unsigned decimal with overflow check; *end is set past the digits. */
const char *conf_parse_u64(const char *s, uint64_t *out, const char **end);
/* "N", "Ns", "Nms", "Nm", "Nh", "Nd" (bare = seconds) into milliseconds. */
const char *conf_parse_duration(const char *s, uint64_t *ms);
/* "N", "NK", "NM", "NG" (binary multiples, bare = bytes). */
const char *conf_parse_size(const char *s, uint64_t *bytes);
/* Node and user names end up in file and socket names: keep them to a safe alphabet. */
const char *conf_check_name(const char *s, size_t cap);
/* "NODE:PORT,...": each node a valid name, once; each port 1-65535 */
const char *conf_check_node_ports(const char *v, size_t cap);
/* A whole number between lo and hi, with a minus sign only when lo is below 0. */
const char *conf_number_in(const char *v, int64_t lo, int64_t hi, int64_t *out);

#endif
