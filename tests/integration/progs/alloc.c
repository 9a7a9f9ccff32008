/* Allocate and touch ARGV[1] MiB, then free it and exit. */
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 500, i;
	volatile char *p = malloc(mib << 20); /* volatile: the stores must really happen */
	unsigned sum = 0;

	if (!p)
		return 1;
	for (i = 0; i < mib << 20; i += 4096)
		p[i] = 1;
	for (i = 0; i < mib << 20; i += 4096)
		sum += p[i];
	free((void *)p);
	return sum == (mib << 20) / 4096 ? 0 : 1;
}
