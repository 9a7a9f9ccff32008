/* Plays slurmstepd for spank_tracer.so (tests/integration/test_client_trust.sh): loads the
 * plugin, gives it the SPANK calls it makes, and runs its callbacks for a step's tasks as
 * slurmstepd would (init, task_post_fork of each, task_exit of each), so that the plugin's own
 * code talks to tracerd.
 *
 *   spank_host PLUGIN.so TASK_PID[,TASK_PID...] [PLUGIN_ARG...]
 *
 * The job is SPANK_HOST_JOB (default 4242), step 0, tasks 0, 1, ... (one per pid), uid and gid
 * 0. SPANK_HOST_ARGV=N:M gives the step N arguments of M bytes each (else "/bin/true").
 * SPANK_HOST_BETWEEN=CMD runs CMD (sh -c) after the first task's post_fork. Slurm's logging
 * goes to stderr as "info: ..."; at the end the peak RSS is printed as "hwm_kb N". Build with
 * -rdynamic: the plugin finds the SPANK calls in this program. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <slurm/spank.h>

#define MAX_TASKS 8

static pid_t task_pids[MAX_TASKS];
static int ntasks, cur; /* the step's tasks, and the one whose callback runs */
static uint32_t job_id = 4242;
static int job_argc = 1;
static char **job_argv;

spank_context_t spank_context(void)
{
	return S_CTX_REMOTE;
}

spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
	(void)sp;
	(void)opt;
	return ESPANK_SUCCESS;
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
	spank_err_t r = ESPANK_SUCCESS;
	va_list ap;

	(void)sp;
	va_start(ap, item);
	switch (item) {
	case S_TASK_PID:
		*va_arg(ap, pid_t *) = task_pids[cur];
		break;
	case S_JOB_ID:
		*va_arg(ap, uint32_t *) = job_id;
		break;
	case S_JOB_STEPID:
		*va_arg(ap, uint32_t *) = 0;
		break;
	case S_TASK_GLOBAL_ID:
		*va_arg(ap, uint32_t *) = (uint32_t)cur;
		break;
	case S_JOB_UID:
		*va_arg(ap, uid_t *) = 0;
		break;
	case S_JOB_GID:
		*va_arg(ap, gid_t *) = 0;
		break;
	case S_JOB_NCPUS:
		*va_arg(ap, uint16_t *) = 1;
		break;
	case S_TASK_EXIT_STATUS:
		*va_arg(ap, int *) = 0;
		break;
	case S_JOB_ARGV:
		*va_arg(ap, int *) = job_argc;
		*va_arg(ap, char ***) = job_argv;
		break;
	default:
		r = ESPANK_NOT_AVAIL;
		break;
	}
	va_end(ap);
	return r;
}

spank_err_t spank_getenv(spank_t sp, const char *var, char *buf, int len)
{
	const char *v = getenv(var);

	(void)sp;
	if (!v)
		return ESPANK_ENV_NOEXIST;
	if ((int)strlen(v) >= len)
		return ESPANK_NOSPACE;
	strcpy(buf, v);
	return ESPANK_SUCCESS;
}

spank_err_t spank_setenv(spank_t sp, const char *var, const char *val, int overwrite)
{
	(void)sp;
	return setenv(var, val, overwrite) == 0 ? ESPANK_SUCCESS : ESPANK_ERROR;
}

static void say(const char *level, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", level);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

#define LOGGER(name)                     \
	void name(const char *fmt, ...)  \
	{                                \
		va_list ap;              \
		va_start(ap, fmt);       \
		say(#name + 6, fmt, ap); \
		va_end(ap);              \
	}
LOGGER(slurm_info)
LOGGER(slurm_error)
LOGGER(slurm_debug)

static long hwm_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			kb = atol(line + 6);
	if (f)
		fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	spank_f *init, *post_fork, *task_exit;
	const char *v, *between = getenv("SPANK_HOST_BETWEEN");
	char *pids, *tok;
	void *so;
	int n, m, i;

	if (argc < 3) {
		fprintf(stderr,
			"usage: spank_host PLUGIN.so TASK_PID[,TASK_PID...] [PLUGIN_ARG...]\n");
		return 2;
	}
	pids = argv[2];
	while ((tok = strsep(&pids, ",")) && ntasks < MAX_TASKS)
		task_pids[ntasks++] = atoi(tok);
	if ((v = getenv("SPANK_HOST_JOB")))
		job_id = (uint32_t)atol(v);
	if ((v = getenv("SPANK_HOST_ARGV")) && sscanf(v, "%d:%d", &n, &m) == 2 && n > 0 && m > 0) {
		job_argc = n;
		job_argv = calloc((size_t)n + 1, sizeof(char *));
		for (i = 0; i < n; i++) {
			job_argv[i] = malloc((size_t)m + 1);
			memset(job_argv[i], 'a' + i % 26, (size_t)m);
			job_argv[i][m] = 0;
		}
	} else {
		static char *dflt[] = { "/bin/true", NULL };
		job_argv = dflt;
	}
	so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!so) {
		fprintf(stderr, "spank_host: %s\n", dlerror());
		return 2;
	}
	init = (spank_f *)dlsym(so, "slurm_spank_init");
	post_fork = (spank_f *)dlsym(so, "slurm_spank_task_post_fork");
	task_exit = (spank_f *)dlsym(so, "slurm_spank_task_exit");
	if (!init || !post_fork || !task_exit) {
		fprintf(stderr, "spank_host: the plugin lacks a callback\n");
		return 2;
	}
	/* as slurmstepd: plugin arguments from plugstack.conf, then the tasks' callbacks */
	if (init(NULL, argc - 3, argv + 3))
		goto failed;
	for (cur = 0; cur < ntasks; cur++) {
		if (post_fork(NULL, 0, NULL))
			goto failed;
		if (cur == 0 && between && system(between) != 0)
			fprintf(stderr, "spank_host: '%s' failed\n", between);
	}
	for (cur = 0; cur < ntasks; cur++)
		if (task_exit(NULL, 0, NULL))
			goto failed;
	printf("hwm_kb %ld\n", hwm_kb());
	dlclose(so);
	return 0;
failed:
	fprintf(stderr, "spank_host: a callback failed the job\n");
	return 1;
}
