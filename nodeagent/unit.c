/* Unit states as Slurm names them. */
#include <errno.h>
#include <string.h>
#include <json-c/json.h>

#include "records.h"
#include "unit.h"

/* Each string of a unit fits the copy a client keeps of it (common/records.h's len): what
 * tracerd stores and sends is never cut short on the way. */
#define FITS(name, kind, sql, len, flags) FITS_##kind(name, len)
#define FITS_TEXT(name, len)                                      \
	_Static_assert(sizeof(((struct unit *)0)->name) <= (len), \
		       #name " is longer than records.h's");
#define FITS_INT(name, len)
#define FITS_INT0(name, len)
#define FITS_REAL(name, len)
#define FITS_BLOB(name, len)
#define FITS_BOOT(name, len)  /* the store's own, not the unit's */
#define FITS_STATE(name, len) /* enum unit_state */
UNIT_RECORD(FITS)

static const char *const state_names[] = {
	[UNIT_RUNNING] = "RUNNING",	[UNIT_COMPLETED] = "COMPLETED", [UNIT_FAILED] = "FAILED",
	[UNIT_CANCELLED] = "CANCELLED", [UNIT_LOST] = "LOST",
};
_Static_assert(sizeof(state_names) / sizeof(*state_names) == UNIT_STATES, "a state unnamed");

const char *unit_state_name(enum unit_state s)
{
	return (unsigned)s < sizeof(state_names) / sizeof(*state_names) ? state_names[s]
									: "UNKNOWN";
}

int unit_state_parse(const char *s, enum unit_state *out)
{
	size_t i;

	for (i = 0; i < sizeof(state_names) / sizeof(*state_names); i++) {
		if (strcmp(s, state_names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* A wait status as Slurm would state it: -1 (unknown) counts as success. */
enum unit_state unit_state_of_status(int status)
{
	if (status < 0)
		return UNIT_COMPLETED;
	if ((status & 0x7f) == 0)
		return (status >> 8) & 0xff ? UNIT_FAILED : UNIT_COMPLETED;
	switch (status & 0x7f) {
	case 2:
	case 9:
	case 15: /* SIGINT, SIGKILL, SIGTERM: stopped from outside */
		return UNIT_CANCELLED;
	default:
		return UNIT_FAILED;
	}
}

/* What replies say of a unit. */
struct json_object *unit_to_json(const struct unit *u)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_int64(u->id));
	json_object_object_add(o, "name", json_object_new_string(u->name));
	json_object_object_add(o, "kind", json_object_new_string(u->kind));
	json_object_object_add(o, "uid", json_object_new_int64(u->uid));
	json_object_object_add(o, "state", json_object_new_string(unit_state_name(u->state)));
	json_object_object_add(o, "start_ns", json_object_new_int64(u->start_ns));
	if (u->end_ns)
		json_object_object_add(o, "end_ns", json_object_new_int64(u->end_ns));
	json_object_object_add(o, "exit_status", json_object_new_int(u->exit_status));
	json_object_object_add(o, "lost_events", json_object_new_int64(u->lost_events));
	json_object_object_add(o, "live", json_object_new_int64(u->live));
	return o;
}
