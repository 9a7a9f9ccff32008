/* Threads that end before the leader and threads that outlive it: the leader calls
 * pthread_exit while two workers still burn CPU, so the process ends with a non-leader. */
#include <pthread.h>
#include <time.h>

static void burn(double seconds)
{
	struct timespec ts, start;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
	do {
		for (int i = 0; i < 100000; i++)
			x += i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while ((ts.tv_sec - start.tv_sec) + (ts.tv_nsec - start.tv_nsec) / 1e9 < seconds);
}

static void *early(void *arg)
{
	(void)arg;
	burn(0.3);
	return NULL;
}

static void *late(void *arg)
{
	(void)arg;
	burn(0.6);
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	pthread_create(&t[0], NULL, early, NULL);
	pthread_create(&t[1], NULL, early, NULL);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	pthread_create(&t[2], NULL, late, NULL);
	pthread_create(&t[3], NULL, late, NULL);
	burn(0.2);
	pthread_exit(NULL); /* the leader goes first; the process lives on in t[2], t[3] */
}
