/* tracerd: the node daemon. main() is the life cycle: each init has its fini, in reverse. */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "agent.h"
#include "clock.h"
#include "collector.h"
#include "config.h"
#include "export.h"
#include "log.h"
#include "metrics.h"
#include "metrics_http.h"
#include "server.h"
#include "store.h"
#include "units.h"

struct options {
	const char *config;
	int config_is_default;
	const char *node;
	int foreground;
	int port; /* -p: TCP port for this daemon, -1 = ListenPort */
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: tracerd [-c FILE] [-N NODENAME] [-p PORT] [-f]\n"
		   "  -c FILE      configuration (default " TRACER_CONF_DEFAULT ")\n"
		   "  -N NODENAME  node name this daemon serves (default: NodeName, else short "
		   "host name)\n"
		   "  -p PORT      TCP port for other nodes' queries (default ListenPort; 0 off)\n"
		   "  -f           stay in the foreground, log to stderr\n");
}

static int parse_args(int argc, char **argv, struct options *o)
{
	int c;

	o->config = TRACER_CONF_DEFAULT;
	o->config_is_default = 1;
	o->port = -1;
	while ((c = getopt(argc, argv, "c:N:p:fh")) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			o->config_is_default = 0;
			break;
		case 'N':
			o->node = optarg;
			break;
		case 'f':
			o->foreground = 1;
			break;
		case 'p': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (!*optarg || *end || v < 0 || v > 65535) {
				fprintf(stderr, "tracerd: -p wants a TCP port, not '%s'\n", optarg);
				return -EINVAL;
			}
			o->port = v;
			break;
		}
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return -EINVAL;
	}
	return 0;
}

static int timer_new(int epfd, uint32_t interval_ms)
{
	struct itimerspec its = {
		.it_interval = { interval_ms / 1000, (interval_ms % 1000) * 1000000L },
	};
	struct epoll_event ev = { .events = EPOLLIN };
	int fd;

	its.it_value = its.it_interval;
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (interval_ms && timerfd_settime(fd, 0, &its, NULL) < 0)
		goto fail;
	ev.data.fd = fd;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		goto fail;
	return fd;
fail:
	close(fd);
	return -errno;
}

static void timer_set(int fd, uint32_t interval_ms)
{
	struct itimerspec its = {
		.it_interval = { interval_ms / 1000, (interval_ms % 1000) * 1000000L },
	};

	its.it_value = its.it_interval;
	timerfd_settime(fd, 0, &its, NULL);
}

static int add_fd(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/* The socket's directory is tracerd's and nobody else may write it: clients (the SPANK plugin
 * above all) trust what answers there. Made 0755 if missing (whatever the umask), group and
 * world write taken away if it had them. */
static int socket_dir(const char *dir)
{
	struct stat st;
	int fd, err = 0, made = mkdir(dir, 0755) == 0;

	if (!made && errno != EEXIST) {
		err = -errno;
		log_error("cannot create %s: %m", dir);
		return err;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		err = -errno;
		log_error("%s: %m", dir);
	} else if (st.st_uid != geteuid()) {
		err = -EPERM;
		log_error("%s belongs to uid %u, not to tracerd", dir, st.st_uid);
	} else if ((made || (st.st_mode & 022)) &&
		   fchmod(fd, made ? 0755 : st.st_mode & 07755) < 0) {
		err = -errno;
		log_error("chmod %s: %m", dir);
	}
	if (fd >= 0)
		close(fd);
	return err;
}

struct daemon {
	struct options opt;
	struct agent *agent;
	struct exporter *exporter; /* NULL: export off */
	struct server *server;
	struct metrics_http *metrics; /* MetricsListen's, NULL when off */
	/* a snapshot of the running units' figures to the exporter every OtlpMetricsInterval
	 * (-1: off, or no metrics exported) */
	int epfd, sigfd, commit_fd, sample_fd, metrics_fd;
	/* a commit tick waits while the store commits (its pruning would wait for it), and a
	 * sample round while the store's next batch is full too: done once it is over, before
	 * the ring's next events */
	int tick_due, sample_due;
};

/* Nice: on a node whose CPUs users' work fills, tracerd is still scheduled soon enough to
 * answer within 100 ms (its loop bounds its own work per turn). Where the kernel groups tasks by
 * session (autogroup: tasks outside any CPU cgroup), a nice value weighs only within the
 * session, and each session weighs alike: a user's storms in sessions of their own left tracerd
 * unscheduled for 300-500 ms. The same nice goes to tracerd's session then, when it leads it
 * (the session is its own: as a daemon, or under systemd), never to an admin's shell's. */
static void set_nice(int nice)
{
	FILE *f;

	if (setpriority(PRIO_PROCESS, 0, nice) < 0)
		log_warn("cannot set the nice value %d: %m", nice);
	if (getsid(0) != getpid() || !(f = fopen("/proc/self/autogroup", "we")))
		return; /* not its own session, or a kernel without autogroup */
	if (fprintf(f, "%d", nice) < 0 || fclose(f) == EOF)
		log_warn("cannot set the nice value %d of tracerd's session: %m", nice);
	else
		log_debug("nice value %d, also of tracerd's session (autogroup)", nice);
}

/* SIGHUP: settings that can change live do; the rest wait for a restart, and say so. */
static void reload(struct daemon *d)
{
	struct tracer_config cfg;
	char err[512];

	if (config_load(d->opt.config, d->opt.config_is_default, &cfg, err, sizeof(err)) < 0) {
		log_error("reload refused, settings unchanged: %s", err);
		return;
	}
	agent_reload(d->agent, &cfg);
	exporter_reload(d->exporter, &cfg);
	metrics_http_set_retry(d->metrics, cfg.metrics_retry_ms);
	set_nice(cfg.nice);
	timer_set(d->commit_fd, cfg.commit_interval_ms);
	timer_set(d->sample_fd, cfg.sample_interval_ms);
	if (d->metrics_fd >= 0) /* 0 stops it; from 0, it starts at the next restart */
		timer_set(d->metrics_fd, cfg.otlp_metrics_interval_ms);
	log_info("configuration reloaded from %s", d->opt.config);
}

/* The running units' figures now, to the exporter: it sends the latest it holds */
static void metrics_post(struct daemon *d)
{
	struct metrics_snapshot *s;

	if (metrics_snapshot_take(d->agent, &s) == 0)
		exporter_put_metrics(d->exporter, s);
}

/* The Prometheus endpoint's state, for status (d->metrics: NULL when off) */
static struct json_object *metrics_status(const void *ctx)
{
	return metrics_http_status_json(ctx);
}

static void drain_timer(int fd)
{
	uint64_t n;

	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		log_warn("timer read: %m");
}

/* The clients of a turn before its timers: a commit or a sample round may take a while. */
static void timers_last(const struct daemon *d, struct epoll_event *evs, int n)
{
	struct epoll_event t;
	int i, fd;

	for (i = 0; i < n; i++) {
		fd = evs[i].data.fd;
		if (fd == d->commit_fd || fd == d->sample_fd || fd == d->metrics_fd) {
			t = evs[i];
			evs[i--] = evs[--n];
			evs[n] = t;
		}
	}
}

/* Where a loop turn's time went: a turn is what a client waits behind at most, so one longer
 * than TURN_SLOW_MS is said with its parts (the log sums a run of them). */
#define TURN_SLOW_MS 250
enum turn_part { TURN_DRAIN, TURN_CLIENTS, TURN_TICK, TURN_SAMPLE, TURN_AFTER, TURN_PARTS };
struct turn {
	uint64_t at, ns[TURN_PARTS];
	uint64_t write0, waited0; /* the store's disk time at its start */
};

static void turn_begin(struct turn *t, const struct store *s)
{
	memset(t, 0, sizeof(*t));
	store_io_ns(s, &t->write0, &t->waited0);
	t->at = clock_mono_ns();
}

static void turn_mark(struct turn *t, enum turn_part part)
{
	uint64_t now = clock_mono_ns();

	t->ns[part] += now - t->at;
	t->at = now;
}

static void turn_end(const struct turn *t, const struct store *s)
{
	uint64_t sum = 0, write, waited;
	int i;

	for (i = 0; i < TURN_PARTS; i++)
		sum += t->ns[i];
	if (sum < (uint64_t)TURN_SLOW_MS * 1000000)
		return;
	store_io_ns(s, &write, &waited);
	log_warn("a loop turn took %" PRIu64 " ms, clients waited: ring %" PRIu64
		 ", clients %" PRIu64 ", commit tick %" PRIu64 ", sample round %" PRIu64
		 ", unit ends %" PRIu64 " ms; of it the store's writes %" PRIu64
		 ", waits for its commit %" PRIu64 " ms",
		 sum / 1000000, t->ns[TURN_DRAIN] / 1000000, t->ns[TURN_CLIENTS] / 1000000,
		 t->ns[TURN_TICK] / 1000000, t->ns[TURN_SAMPLE] / 1000000,
		 t->ns[TURN_AFTER] / 1000000, (write - t->write0) / 1000000,
		 (waited - t->waited0) / 1000000);
}

/* The tick and the sample round that waited for the store: the samples first, the tick last
 * (its batch is handed over). */
static void due_work(struct daemon *d, struct turn *turn)
{
	if (d->sample_due && !store_full(agent_store(d->agent))) {
		d->sample_due = 0;
		agent_sample(d->agent);
		turn_mark(turn, TURN_SAMPLE);
	}
	if (d->tick_due && !store_busy(agent_store(d->agent))) {
		d->tick_due = 0;
		agent_tick(d->agent); /* hands the store's commit over */
		turn_mark(turn, TURN_TICK);
	}
}

static int run_loop(struct daemon *d)
{
	struct epoll_event evs[32];
	struct signalfd_siginfo si;
	struct turn turn;
	int i, n, cfd = agent_events_fd(d->agent);
	int64_t stop_by_ms = 0; /* once a stop is asked: when it goes, replies sent or not */
	int committed_fd = agent_commit_fd(d->agent);

	for (;;) {
		/* events left in the ring by the last drain: no wait (the kernel side may have
		 * sent no wakeup for them); a parked reply waits for exits: look again soon */
		n = epoll_wait(d->epfd, evs, 32,
			       agent_drain_more(d->agent)     ? 0
			       : server_has_parked(d->server) ? 5
							      : COLLECTOR_DRAIN_MS);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			log_error("epoll_wait: %m");
			return -errno;
		}
		/* Once per turn, ring readable or not (below the wakeup mark, events wait for
		 * this), and bounded (collector_drain): the clients ready now are served next
		 * whatever the event rate. */
		turn_begin(&turn, agent_store(d->agent));
		for (i = 0; i < n; i++)
			if (evs[i].data.fd == committed_fd)
				agent_commit_ended(d->agent); /* the ring's events go on */
		due_work(d, &turn);
		agent_drain(d->agent);
		turn_mark(&turn, TURN_DRAIN);
		timers_last(d, evs, n);
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == cfd || fd == committed_fd) {
				continue; /* drained, settled above */
			} else if (fd == d->sigfd) {
				if (read(d->sigfd, &si, sizeof(si)) != sizeof(si))
					continue;
				if (si.ssi_signo == SIGHUP) {
					reload(d);
					continue;
				}
				log_info("signal %u: flushing and exiting", si.ssi_signo);
				return 0;
			} else if (fd == d->commit_fd) {
				drain_timer(fd);
				d->tick_due = 1;
				agent_sync_subuids(d->agent, server_subuids(d->server));
				server_expire(d->server);
				metrics_http_expire(d->metrics);
				metrics_http_retry(d->metrics);
				turn_mark(&turn, TURN_TICK);
			} else if (fd == d->sample_fd) {
				drain_timer(fd);
				d->sample_due = 1;
			} else if (fd == d->metrics_fd) {
				drain_timer(fd);
				metrics_post(d);
				turn_mark(&turn, TURN_SAMPLE);
			} else if (metrics_http_owns(d->metrics, fd)) {
				metrics_http_handle(d->metrics, d->agent, d->server, fd,
						    evs[i].events);
				turn_mark(&turn, TURN_CLIENTS);
			} else {
				server_handle(d->server, d->agent, fd, evs[i].events);
				turn_mark(&turn, TURN_CLIENTS);
			}
		}
		due_work(d, &turn);
		server_resume(d->server, d->agent);
		units_reap(d->agent); /* what the handlers dropped: none of them runs now */
		turn_mark(&turn, TURN_AFTER);
		turn_end(&turn, agent_store(d->agent));
		/* the replies queued (the shutdown's own) are sent first, for a second at most */
		if (agent_stop_requested(d->agent) && !stop_by_ms)
			stop_by_ms = clock_mono_ms() + 1000;
		if (stop_by_ms && (!server_sending(d->server) || clock_mono_ms() >= stop_by_ms)) {
			log_info("shutdown: flushing and exiting");
			return 0;
		}
	}
}

/* One tracerd per node name: a second would take over the first's socket and, at its exit,
 * leave the first running but unreachable. An flock on StateDir/NODE.lock (released by the
 * kernel at exit, whatever the exit) says who serves the node. Returns the fd, or -1 said. */
static int lock_node(const struct tracer_config *cfg, const char *node)
{
	char path[PATH_MAX], pid[32] = "";
	int fd;
	ssize_t n;

	if (mkdir(cfg->state_dir, 0755) < 0 && errno != EEXIST) {
		log_error("cannot create %s: %m", cfg->state_dir);
		return -1;
	}
	if (config_lock_path(cfg, node, path, sizeof(path)) < 0 ||
	    (fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644)) < 0) {
		log_error("cannot open the lock file %s/%s.lock: %m", cfg->state_dir, node);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	if (errno != EWOULDBLOCK) {
		log_error("cannot lock %s: %m", path);
	} else {
		if ((n = pread(fd, pid, sizeof(pid) - 1, 0)) > 0)
			pid[strcspn(pid, "\n")] = 0;
		log_error("node %s is already served by another tracerd%s%s (%s is locked): stop "
			  "it first, or "
			  "give another -N",
			  node, pid[0] ? ", pid " : "", pid, path);
	}
	close(fd);
	return -1;
}

/* the lock's holder, for the message of the next one */
static void lock_owner(int fd)
{
	char pid[32];
	int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());

	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n)
		log_warn("cannot write the pid into the lock file: %m");
}

/* Fork; the parent waits for the child's word (one byte: 0 ready) and exits with it. Returns
 * the child's end of the pipe, or -errno. */
static int detach(void)
{
	int p[2], fd;
	char status = 1;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(p[1]);
		if (read(p[0], &status, 1) != 1)
			status = 1; /* the child died before it was ready */
		_exit(status);
	}
	close(p[0]);
	setsid();
	if (chdir("/") < 0)
		return -errno;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
	return p[1];
}

static void detach_ready(int fd)
{
	char ok = 0;

	if (fd < 0)
		return;
	if (write(fd, &ok, 1) != 1)
		log_warn("could not tell the starting process that tracerd is ready: %m");
	close(fd);
}

static int block_signals(void)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	signal(SIGPIPE, SIG_IGN);
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int main(int argc, char **argv)
{
	struct daemon d = {
		.epfd = -1, .sigfd = -1, .commit_fd = -1, .sample_fd = -1, .metrics_fd = -1
	};
	struct tracer_config cfg;
	char err[512], node[64], sock[4096], conf[PATH_MAX];
	int r, ret = 1, ready_fd = -1, lock_fd;

	if (parse_args(argc, argv, &d.opt) < 0)
		return 2;
	/* SIGHUP rereads it after the move to / */
	if (!d.opt.config_is_default && realpath(d.opt.config, conf))
		d.opt.config = conf;
	log_open("tracerd", d.opt.foreground, LOG_LEVEL_INFO);
	if (config_load(d.opt.config, d.opt.config_is_default, &cfg, err, sizeof(err)) < 0) {
		log_error("%s", err);
		return 1;
	}
	log_set_level(cfg.log_level);
	if (config_node(&cfg, d.opt.node, node, sizeof(node)) < 0) {
		log_error("cannot tell the node name: give -N");
		return 1;
	}

	if ((lock_fd = lock_node(&cfg, node)) < 0)
		return 1;
	/* Detach before anything else: signalfd and epoll belong to the process that made them.
	 * The parent waits until the child is ready, so a failed start is still the exit
	 * status of whoever started tracerd, and the socket exists when it returns. */
	if (!d.opt.foreground) {
		ready_fd = detach();
		if (ready_fd < 0) {
			log_error("cannot detach: %s", strerror(-ready_fd));
			close(lock_fd);
			return 1;
		}
	}
	lock_owner(lock_fd);
	set_nice(cfg.nice);
	d.sigfd = block_signals();
	if (d.sigfd < 0) {
		log_error("cannot set up signals: %s", strerror(-d.sigfd));
		goto out;
	}
	d.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (d.epfd < 0 || add_fd(d.epfd, d.sigfd) < 0) {
		log_error("epoll: %m");
		goto out;
	}
	r = agent_new(&d.agent, &cfg, node);
	if (r < 0) {
		log_error("cannot start: %s", strerror(-r));
		goto out_agent;
	}
	r = add_fd(d.epfd, agent_events_fd(d.agent));
	if (r >= 0)
		r = add_fd(d.epfd, agent_commit_fd(d.agent));
	if (r < 0)
		goto out_agent;
	/* the store is open: its export runs on a thread of its own from here on */
	exporter_check_conf(d.opt.config, &cfg);
	r = exporter_start(&d.exporter, &cfg, node, store_file(agent_store(d.agent)),
			   store_export_head(agent_store(d.agent)));
	if (r < 0)
		goto out_agent;
	agent_set_exporter(d.agent, d.exporter);
	if (d.exporter)
		metrics_set_export(exporter_metrics, d.exporter);
	r = socket_dir(cfg.socket_dir);
	if (r < 0)
		goto out_agent;
	r = config_socket_path(&cfg, node, sock, sizeof(sock));
	if (r < 0) {
		log_error("socket path too long under %s", cfg.socket_dir);
		goto out_agent;
	}
	r = server_open(&d.server, sock, &cfg, d.epfd,
			d.opt.port >= 0 ? (unsigned)d.opt.port : config_listen_port(&cfg, node));
	if (r < 0)
		goto out_agent;
	/* off unless set; a port alone is loopback's */
	if (cfg.metrics_listen[0] &&
	    metrics_http_open(&d.metrics, cfg.metrics_listen, cfg.metrics_retry_ms, d.epfd) < 0)
		goto out_server;
	agent_set_metrics_status(d.agent, metrics_status, d.metrics);
	agent_sync_subuids(d.agent, server_subuids(d.server));
	d.commit_fd = timer_new(d.epfd, cfg.commit_interval_ms);
	d.sample_fd = timer_new(d.epfd, cfg.sample_interval_ms);
	if (exporter_metrics_on(d.exporter))
		d.metrics_fd = timer_new(d.epfd, cfg.otlp_metrics_interval_ms);
	if (d.commit_fd < 0 || d.sample_fd < 0 ||
	    (exporter_metrics_on(d.exporter) && d.metrics_fd < 0)) {
		log_error("cannot create timers");
		goto out_server;
	}
	r = agent_rediscover(d.agent);
	if (r < 0)
		log_warn("rediscovery of running units failed: %s", strerror(-r));
	log_info("node %s ready on %s", node, sock);
	detach_ready(ready_fd);
	ready_fd = -1;

	ret = run_loop(&d) < 0;

out_server:
	if (d.agent)
		agent_set_metrics_status(d.agent, NULL, NULL);
	metrics_http_close(d.metrics);
	server_close(d.server);
out_agent:
	if (d.agent)
		agent_set_exporter(d.agent, NULL);
	metrics_set_export(NULL, NULL);
	exporter_stop(d.exporter); /* a post under way is abandoned: bounded */
	agent_free(d.agent);
out:
	if (d.commit_fd >= 0)
		close(d.commit_fd);
	if (d.sample_fd >= 0)
		close(d.sample_fd);
	if (d.metrics_fd >= 0)
		close(d.metrics_fd);
	if (d.epfd >= 0)
		close(d.epfd);
	if (d.sigfd >= 0)
		close(d.sigfd);
	close(lock_fd);
	log_flush_all(); /* a flood's last lines, held back in a window not over yet */
	return ret;
}
