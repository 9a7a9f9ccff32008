/* Burn about ARGV[1] seconds of user CPU in one thread. */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	double want = argc > 1 ? atof(argv[1]) : 1.0;
	volatile unsigned long x = 0;
	struct timespec ts;

	do {
		for (int i = 0; i < 1000000; i++)
			x += i * 7;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < want);
	return 0;
}
