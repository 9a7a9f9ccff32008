/* tracerd's state and what it does with kernel events and registrations. main.c owns the
 * event loop; server.c turns socket requests into the calls below. */
#ifndef TRACER_AGENT_H
#define TRACER_AGENT_H

#include <stdint.h>
#include <sys/types.h>
#include <json-c/json.h>

#include "collector.h"
#include "config.h"
#include "proctable.h"
#include "store.h"
#include "topology.h"
#include "tools.h"
#include "unit.h"

struct agent {
        struct tracer_config cfg;
        char node[64];
        char boot_id[40];
        int64_t offset_ns;      /* unix time = CLOCK_BOOTTIME + offset */
        uint64_t tick_ns;
        uid_t slurm_uid;        /* SlurmUser's uid, (uid_t)-1 when unknown */
        int64_t started_ns;
        struct collector *collector;
        struct store *store;
        struct proctable procs;
        struct unit *units;     /* units.c's alone: units with work in memory */
        uint64_t next_unit_id;
        uint64_t events[STAT_MAX];   /* events handled, by STAT_* */
        uint64_t bad_events;         /* malformed records from the ring buffer */
        uint64_t stored;             /* processes stored since start */
        struct topology topology;    /* hwloc's view of the node, loaded once */
        struct tool_rules *rules;    /* built-in rules + ToolRules's, in force */
        int have_topology;
        int64_t last_alive_ns;       /* the previous run's last heartbeat (unix ns), 0 unknown */
        int64_t housekept_ns;        /* when the store was last pruned */
        int prune_backlog;           /* the last prune took a full batch: go on at the next tick */
        uint64_t unstored;           /* processes the store could not write, of units gone */
        unsigned ndropped;           /* units dropped, waiting for units_reap */
};

/* The peer of a request, from SO_PEERCRED. */
struct peer {
        pid_t pid;
        uid_t uid;
        gid_t gid;
};

int agent_init(struct agent *a, const struct tracer_config *cfg, const char *node);
void agent_fini(struct agent *a);

/* Ring-buffer callback (collector_event_fn). */
int agent_on_event(void *ctx, const void *data, size_t size);

/* Find tracked work of running units again after a restart. */
int agent_rediscover(struct agent *a);
/* (Re)load the tool rules: the built-in ones, then those of the ToolRules file at path, which
 * override them. A missing file leaves the built-in rules alone in force (logged); on any
 * other error the rules in force stay and the error is logged with file:line. Returns 0 or
 * -errno. */
int agent_load_rules(struct agent *a, const char *path);
/* Periodic: sample live processes for timelines. */
/* Sample live processes; close those gone from /proc whose exit never came. */
int agent_sample(struct agent *a);
/* The shortest idle window of a unit worth reporting: StallAfter (5 min when stalls are off). */
uint64_t agent_idle_min_ns(const struct agent *a);
/* On every commit tick: the heartbeat; every AGENT_HOUSEKEEPING_MS (every tick while there is
 * a backlog), store pruning. */
#define AGENT_HOUSEKEEPING_MS 10000
void agent_tick(struct agent *a);
/* Record a process whose exit never came from what its last sample knew, flagged as such. */
void agent_close_lost(struct agent *a, struct proc *p);

/* A request whose reply waits for the kernel: the end of a unit or of a job waits until their
 * last processes' exits are recorded (the last one is sent at its final switch-out, a moment
 * after the client's wait(2) returned), at most PARK_MS. The loop keeps the client waiting,
 * never blocks on it, and resumes the request (request_resume) when it is ready. */
#define PARK_MS 100
struct parked {
        enum { PARK_NONE, PARK_UNIT_END, PARK_JOB_END } kind;
        uint64_t id;          /* the unit or the job */
        int64_t status;       /* the exit status the request gave, or -1 */
        int64_t deadline_ns;  /* CLOCK_BOOTTIME */
        struct peer peer;
};

/* Requests; each returns a reply object (never NULL unless out of memory), or NULL with
 * park->kind set: the request waits (see struct parked). For a listing, *stream is set too:
 * the reply is then the head, and the rows follow from the stream (stream.h). */
struct reply_stream;
struct json_object *agent_request(struct agent *a, const struct peer *peer, struct json_object *req,
                                  struct reply_stream **stream, struct parked *park);
/* Whether a parked request can be answered now: its processes are recorded, or its time is up. */
int request_ready(struct agent *a, const struct parked *park);
/* Finish a parked request: its reply. */
struct json_object *request_resume(struct agent *a, const struct parked *park);

uint64_t agent_now_boot_ns(void);
int64_t agent_now_unix_ns(void); /* CLOCK_REALTIME */

#endif
