/* The clocks (clock.h). */
#include <errno.h>
#include <time.h>

#include "clock.h"

static int64_t read_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t clock_boot_ns(void)
{
	return read_ns(CLOCK_BOOTTIME);
}

uint64_t clock_mono_ns(void)
{
	return read_ns(CLOCK_MONOTONIC);
}

int64_t clock_unix_ns(void)
{
	return read_ns(CLOCK_REALTIME);
}

int64_t clock_mono_ms(void)
{
	return read_ns(CLOCK_MONOTONIC) / 1000000;
}

int clock_unix_offset(int64_t *offset_ns)
{
	int64_t before = read_ns(CLOCK_BOOTTIME), unix_ns = read_ns(CLOCK_REALTIME);
	int64_t after = read_ns(CLOCK_BOOTTIME);

	if (after - before > CLOCK_READ_NS)
		return -EAGAIN;
	*offset_ns = unix_ns - (before + (after - before) / 2);
	return 0;
}
