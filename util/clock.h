/* tracerd's two clocks: the kernel's (CLOCK_BOOTTIME, what BPF events carry) and the wall
 * clock (unix ns, what is stored and shown). */
#ifndef TRACER_CLOCK_H
#define TRACER_CLOCK_H

#include <stdint.h>

uint64_t clock_boot_ns(void);
int64_t clock_unix_ns(void);
uint64_t clock_mono_ns(void); /* CLOCK_MONOTONIC: for time budgets */

#endif
