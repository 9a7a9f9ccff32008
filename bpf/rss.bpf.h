/* Peak memory: the kernel's maxrss, and the program's own peak read from its images. */
#ifndef TRACER_BPF_RSS_H
#define TRACER_BPF_RSS_H

#include "maps.bpf.h"
#include "proc_state.bpf.h"

/* before 6.2 mm_struct's RSS counters were atomics in a struct; since, percpu counters (read
 * through CO-RE flavours, as kernel.bpf.h says) */
struct mm_rss_stat___pre62 {
	atomic_long_t count[4];
} __attribute__((preserve_access_index));
struct mm_struct___pre62 {
	struct mm_rss_stat___pre62 rss_stat;
} __attribute__((preserve_access_index));

/* ... and a task kept its latest RSS changes to itself, folded into the mm every 64 faults
 * (SPLIT_RSS_COUNTING): the mm's count alone can be hundreds of KiB behind */
struct task_rss_stat___pre62 {
	int events;
	int count[4];
} __attribute__((preserve_access_index));
struct task_struct___pre62 {
	struct task_rss_stat___pre62 rss_stat;
} __attribute__((preserve_access_index));

#define MM_FILEPAGES 0
#define MM_ANONPAGES 1
#define MM_SHMEMPAGES 3

/* Resident pages of an address space: percpu_counter's global count, or the atomic before
 * 6.2; the same approximation get_mm_rss() uses. */
static __always_inline __u64 mm_rss_pages(struct mm_struct *mm)
{
	struct mm_struct___pre62 *old = (void *)mm;
	__s64 c, rss = 0;

	/* reads, not loads: 6.1's verifier cannot follow a load into an array of atomic_long_t */
	if (bpf_core_field_exists(old->rss_stat.count)) {
		c = BPF_CORE_READ(old, rss_stat.count[MM_FILEPAGES].counter);
		rss += c > 0 ? c : 0;
		c = BPF_CORE_READ(old, rss_stat.count[MM_ANONPAGES].counter);
		rss += c > 0 ? c : 0;
		c = BPF_CORE_READ(old, rss_stat.count[MM_SHMEMPAGES].counter);
		rss += c > 0 ? c : 0;
	} else {
		c = mm->rss_stat[MM_FILEPAGES].count;
		rss += c > 0 ? c : 0;
		c = mm->rss_stat[MM_ANONPAGES].count;
		rss += c > 0 ? c : 0;
		c = mm->rss_stat[MM_SHMEMPAGES].count;
		rss += c > 0 ? c : 0;
	}
	return rss;
}

/* RSS changes the task has not yet folded into its mm (before 6.2; 0 since). */
static __always_inline __s64 rss_unfolded(struct task_struct *task)
{
	struct task_struct___pre62 *old = (void *)task;

	if (!bpf_core_field_exists(old->rss_stat))
		return 0;
	return (__s64)BPF_CORE_READ(old, rss_stat.count[MM_FILEPAGES]) +
	       BPF_CORE_READ(old, rss_stat.count[MM_ANONPAGES]) +
	       BPF_CORE_READ(old, rss_stat.count[MM_SHMEMPAGES]);
}

/* An address space's peak as the kernel folds it into maxrss: its high-water mark (updated
 * only when RSS is about to fall) or its current RSS, whichever is higher. unfolded: the
 * reading task's own changes not yet in the mm's count (see rss_unfolded). */
static __always_inline __u64 mm_peak_pages(struct mm_struct *mm, __s64 unfolded)
{
	__s64 rss = (__s64)mm_rss_pages(mm) + unfolded;
	__u64 hiwater = mm->hiwater_rss;

	if (rss < 0)
		rss = 0;
	return (__u64)rss > hiwater ? (__u64)rss : hiwater;
}

/* A reading of the running program's own image: counted only after the first exec, since
 * before it the image is the forked copy of the parent. */
static __always_inline void note_own_peak(struct tracked_proc *t, __u64 pages)
{
	if ((t->flags & TRACKED_EXECED) && pages > t->own_rss)
		t->own_rss = pages;
}

/* The exit's two memory figures, in pages: getrusage's maxrss (every image of the process,
 * the pre-exec copy of its parent included) and the program's own peak (0: unread). */
static __always_inline void exit_peaks(struct task_struct *task, struct tracked_proc *t,
				       __u64 *ru_maxrss, __u64 *own)
{
	struct mm_struct *mm = task->mm;
	__u64 maxrss = task->signal->maxrss, final = 0;

	/* Kernels that trace the exit before releasing the address space still show it; older
	 * ones folded it into maxrss and released it (active_mm may by now be borrowed). */
	if (mm) {
		final = mm_peak_pages(mm, rss_unfolded(task));
		exit_sees_mm = 1;
	}
	*ru_maxrss = final > maxrss ? final : maxrss;
	if (!(t->flags & TRACKED_EXECED)) { /* never ran a program of its own: all of it is its */
		*own = *ru_maxrss;
		return;
	}
	note_own_peak(t, final);
	if (maxrss > t->base_rss) /* a post-exec image rose above the inherited figure */
		note_own_peak(t, maxrss);
	*own = t->own_rss;
}

/* A reading of the calling process's image, if it is tracked. */
static __always_inline void note_current_peak(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct proc_state *ps;
	struct mm_struct *mm;

	if (!maybe_tracked(task))
		return;
	ps = proc_of(task);
	if (!ps)
		return;
	mm = task->mm;
	if (mm)
		note_own_peak(&ps->proc, mm_peak_pages(mm, rss_unfolded(task)));
}

#endif
