/* Checks shared by the fuzz targets. */
#ifndef TRACER_FUZZ_CHECK_H
#define TRACER_FUZZ_CHECK_H

#include <stdlib.h>
#include <string.h>

/* A fixed-size output field must be NUL-terminated within size and free of control
 * characters (field_set's promise). */
static inline void fuzz_check_field(const char *s, size_t size)
{
	const char *end = memchr(s, 0, size);

	if (!end)
		abort();
	for (; s < end; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			abort();
}

#endif
