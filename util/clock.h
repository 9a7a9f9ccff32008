/* The clocks: the kernel's (CLOCK_BOOTTIME, what BPF events carry), the wall clock (unix ns,
 * what is stored and shown), and the monotonic one for timeouts and budgets. */
#ifndef TRACER_CLOCK_H
#define TRACER_CLOCK_H

#include <stdint.h>

uint64_t clock_boot_ns(void);
int64_t clock_unix_ns(void);
uint64_t clock_mono_ns(void); /* CLOCK_MONOTONIC: for time budgets */
int64_t clock_mono_ms(void);  /* the same in ms: deadlines of exchanges and clients */
/* unix time = CLOCK_BOOTTIME + *offset_ns, the wall clock read between two readings of the
 * boot clock: 0, or -EAGAIN (*offset_ns untouched) when the scheduler cut the reading in two
 * (more than CLOCK_READ_NS) */
#define CLOCK_READ_NS 100000
int clock_unix_offset(int64_t *offset_ns);

#endif
