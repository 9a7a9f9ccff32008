/* tracer-jobstat: reports of what tracerd recorded, in sacct's manner. This first version
 * lists units and their processes; efficiency and rightsizing build on it. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "client.h"
#include "format.h"

#define UNKNOWN "---"

static const char *prog = "tracer-jobstat";

struct opts {
        struct client_target target;
        char *jobs;
        int processes, parsable, noheader, json;
};

static void usage(FILE *f)
{
        fprintf(f, "Usage: tracer-jobstat [-c FILE] [-N NODE] -j JOB[,JOB...] [--processes] [-P] [-n] [--json]\n"
                   "  -j, --jobs       job ids, unit ids or run names\n"
                   "  --processes      one row per process\n"
                   "  -P, --parsable2  '|'-separated, no trailing '|'\n"
                   "  -n, --noheader   no header line\n"
                   "  --json           the records as JSON\n");
}

static void fmt_time(char *out, size_t len, int64_t unix_ns)
{
        time_t t = unix_ns / 1000000000;
        struct tm tm;

        if (unix_ns <= 0 || !localtime_r(&t, &tm)) {
                snprintf(out, len, UNKNOWN);
                return;
        }
        strftime(out, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

static void fmt_exit(char *out, size_t len, int64_t status)
{
        if (status < 0)
                snprintf(out, len, UNKNOWN);
        else if (WIFSIGNALED((int)status))
                snprintf(out, len, "0:%d", WTERMSIG((int)status));
        else
                snprintf(out, len, "%d:0", WEXITSTATUS((int)status));
}

/* argv array joined by spaces, at most len - 1 bytes */
static void fmt_argv(char *out, size_t len, struct json_object *p)
{
        struct json_object *argv;
        size_t i, at = 0;

        out[0] = 0;
        if (!json_object_object_get_ex(p, "argv", &argv) || !json_object_is_type(argv, json_type_array)) {
                snprintf(out, len, "%s", reply_str(p, "comm", UNKNOWN));
                return;
        }
        for (i = 0; i < json_object_array_length(argv) && at + 1 < len; i++)
                at += snprintf(out + at, len - at, "%s%s", i ? " " : "",
                               json_object_get_string(json_object_array_get_idx(argv, i)));
        if (reply_int(p, "flags", 0) & 0x4)
                snprintf(out + (at < len - 4 ? at : len - 4), 4, "...");
}

static void row(const struct opts *o, int ncols, const char **cols, const int *widths)
{
        int i;

        for (i = 0; i < ncols; i++) {
                if (o->parsable)
                        printf("%s%s", i ? "|" : "", cols[i]);
                else if (i == ncols - 1)
                        printf("%s", cols[i]);
                else
                        printf("%*s ", widths[i], cols[i]);
        }
        printf("\n");
}

static int print_processes(const struct opts *o, const char *sock, struct json_object *unit, int *header)
{
        static const char *names[] = { "JobID", "PID", "PPID", "Start", "Elapsed", "TotalCPU", "MaxRSS",
                                       "ReadBytes", "WriteBytes", "ExitCode", "Command" };
        static const int widths[] = { -12, 8, 8, 19, 10, 10, 8, 10, 10, 8, 0 };
        struct json_object *req = client_new_request("processes"), *reply, *procs;
        char v[10][64], cmd[512];
        const char *cols[11];
        size_t i;
        int r, c;

        json_object_object_add(req, "unit", json_object_new_int64(reply_int(unit, "id", 0)));
        r = client_request(prog, sock, req, 30000, &reply);
        json_object_put(req);
        if (r < 0)
                return r;
        if (o->json) {
                printf("%s\n", json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN));
                json_object_put(reply);
                return 0;
        }
        if (*header && !o->noheader) {
                row(o, 11, names, widths);
                *header = 0;
        }
        json_object_object_get_ex(reply, "processes", &procs);
        for (i = 0; procs && i < json_object_array_length(procs); i++) {
                struct json_object *p = json_object_array_get_idx(procs, i);
                int64_t start = reply_int(p, "start_ns", 0), end = reply_int(p, "end_ns", 0);

                snprintf(v[0], 64, "%s", reply_str(unit, "name", UNKNOWN));
                snprintf(v[1], 64, "%" PRId64, reply_int(p, "pid", 0));
                snprintf(v[2], 64, "%" PRId64, reply_int(p, "ppid", 0));
                fmt_time(v[3], 64, start);
                fmt_seconds(v[4], 64, (end - start) / 1e9);
                fmt_seconds(v[5], 64, reply_int(p, "cpu_ns", 0) / 1e9);
                fmt_bytes(v[6], 64, reply_int(p, "maxrss_kb", 0) * 1024.0);
                fmt_bytes(v[7], 64, reply_int(p, "read_bytes", 0));
                fmt_bytes(v[8], 64, reply_int(p, "write_bytes", 0));
                fmt_exit(v[9], 64, reply_int(p, "status", -1));
                fmt_argv(cmd, sizeof(cmd), p);
                for (c = 0; c < 10; c++)
                        cols[c] = v[c];
                cols[10] = cmd;
                row(o, 11, cols, widths);
        }
        json_object_put(reply);
        return 0;
}

static int print_unit(const struct opts *o, struct json_object *unit, int *header)
{
        static const char *names[] = { "JobID", "State", "Start", "Elapsed", "NProcs", "TotalCPU",
                                       "MaxRSS", "ReadBytes", "WriteBytes", "ExitCode", "Lost" };
        static const int widths[] = { -16, 10, 19, 10, 7, 10, 8, 10, 10, 8, 0 };
        struct json_object *t;
        char v[11][64];
        const char *cols[11];
        int64_t start = reply_int(unit, "start_ns", 0), end = reply_int(unit, "end_ns", 0);
        int c;

        if (!json_object_object_get_ex(unit, "totals", &t))
                t = NULL;
        if (*header && !o->noheader) {
                row(o, 11, names, widths);
                *header = 0;
        }
        snprintf(v[0], 64, "%s", reply_str(unit, "name", UNKNOWN));
        snprintf(v[1], 64, "%s", reply_str(unit, "state", UNKNOWN));
        fmt_time(v[2], 64, start);
        if (end)
                fmt_seconds(v[3], 64, (end - start) / 1e9);
        else
                snprintf(v[3], 64, UNKNOWN);
        snprintf(v[4], 64, "%" PRId64, reply_int(t, "nprocs", 0));
        fmt_seconds(v[5], 64, reply_int(t, "cpu_ns", 0) / 1e9);
        fmt_bytes(v[6], 64, reply_int(t, "maxrss_kb", 0) * 1024.0);
        fmt_bytes(v[7], 64, reply_int(t, "read_bytes", 0));
        fmt_bytes(v[8], 64, reply_int(t, "write_bytes", 0));
        fmt_exit(v[9], 64, reply_int(unit, "exit_status", -1));
        snprintf(v[10], 64, "%" PRId64, reply_int(unit, "lost_events", 0));
        for (c = 0; c < 11; c++)
                cols[c] = v[c];
        row(o, 11, cols, widths);
        return 0;
}

int main(int argc, char **argv)
{
        static const struct option longopts[] = {
                { "jobs", required_argument, NULL, 'j' },  { "processes", no_argument, NULL, 'x' },
                { "parsable2", no_argument, NULL, 'P' },    { "noheader", no_argument, NULL, 'n' },
                { "json", no_argument, NULL, 'J' },         { "help", no_argument, NULL, 'h' },
                {}
        };
        struct opts o = {};
        struct json_object *req, *reply, *units;
        char sock[4096], *sel, *save = NULL;
        int c, header = 1, ret = 0, found = 0;
        size_t i;

        while ((c = getopt_long(argc, argv, "c:N:j:Pnh", longopts, NULL)) != -1) {
                switch (c) {
                case 'c': o.target.config = optarg; break;
                case 'N': o.target.node = optarg; break;
                case 'j': o.jobs = optarg; break;
                case 'x': o.processes = 1; break;
                case 'P': o.parsable = 1; break;
                case 'n': o.noheader = 1; break;
                case 'J': o.json = 1; break;
                case 'h': usage(stdout); return 0;
                default: usage(stderr); return 2;
                }
        }
        if (!o.jobs || optind != argc) {
                usage(stderr);
                return 2;
        }
        if (client_socket_path(&o.target, sock, sizeof(sock)) < 0)
                return 1;
        for (sel = strtok_r(o.jobs, ",", &save); sel; sel = strtok_r(NULL, ",", &save)) {
                req = client_new_request("units");
                json_object_object_add(req, "select", json_object_new_string(sel));
                c = client_request(prog, sock, req, 10000, &reply);
                json_object_put(req);
                if (c < 0)
                        return 1;
                json_object_object_get_ex(reply, "units", &units);
                for (i = 0; units && i < json_object_array_length(units); i++) {
                        struct json_object *u = json_object_array_get_idx(units, i);

                        found++;
                        c = o.processes || o.json ? print_processes(&o, sock, u, &header)
                                                  : print_unit(&o, u, &header);
                        if (c < 0)
                                ret = 1;
                }
                if (!units || json_object_array_length(units) == 0)
                        fprintf(stderr, "%s: no job or run '%s' recorded (or not yours)\n", prog, sel);
                json_object_put(reply);
        }
        return ret || !found;
}
