/* nap SECONDS: sleeps that long (fractions too), then exits 0. Copied under other names, it
 * gives a test processes it can tell apart by comm, on guests whose sleep is busybox's. */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	double s = argc > 1 ? atof(argv[1]) : 0;
	struct timespec t = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&t, NULL);
	return 0;
}
