/* "Slower than usual" (slower.h). */
#include <stdlib.h>

#include "slower.h"
#include "slurm_ids.h"

int slower_compared(int64_t step_id, int64_t task_id)
{
	return step_id != (int64_t)STEP_NONE && task_id <= 0;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

int64_t slower_median(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int slower_than_usual(int64_t took_ns, int64_t usual_ns)
{
	return usual_ns > 0 && took_ns > 0 && (double)took_ns >= SLOWER_FACTOR * (double)usual_ns &&
	       took_ns - usual_ns >= SLOWER_MIN_NS;
}
