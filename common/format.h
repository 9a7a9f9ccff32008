/* Human-readable figures, as sacct and seff print them. */
#ifndef TRACER_FORMAT_H
#define TRACER_FORMAT_H

#include <stddef.h>

/* "1.50s", "2:03.10", "1-02:03:04" depending on size. */
void fmt_seconds(char *out, size_t len, double seconds);
/* "512B", "1.5K", "3.2M", "1.0G" (binary units). */
void fmt_bytes(char *out, size_t len, double bytes);

#endif
