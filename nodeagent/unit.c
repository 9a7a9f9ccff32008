/* Unit states as Slurm names them. */
#include <errno.h>
#include <string.h>

#include "unit.h"

static const char *const state_names[] = {
        [UNIT_RUNNING] = "RUNNING",     [UNIT_COMPLETED] = "COMPLETED", [UNIT_FAILED] = "FAILED",
        [UNIT_CANCELLED] = "CANCELLED", [UNIT_LOST] = "LOST",
};

const char *unit_state_name(enum unit_state s)
{
        return (unsigned)s < sizeof(state_names) / sizeof(*state_names) ? state_names[s] : "UNKNOWN";
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
