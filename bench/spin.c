/* spin: a fixed amount of pure CPU work (no syscalls in the loop).
 * Prints the elapsed wall time in nanoseconds on stdout. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t iters = argc > 1 ? strtoull(argv[1], NULL, 10) : 800000000ULL;
	volatile uint64_t sink;
	uint64_t x = 88172645463325252ULL, i;
	long long t0 = now_ns();

	for (i = 0; i < iters; i++) { /* xorshift64: a dependent chain the compiler cannot fold */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	sink = x;
	(void)sink;
	printf("%lld\n", now_ns() - t0);
	return 0;
}
