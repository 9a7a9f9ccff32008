/* argstorm SECONDS: storm.c's exec storm of itself (two 4000-byte arguments each time) for
 * SECONDS; prints how many ran. An exec storm whose rows are large, of a tool of its own. */
#define STORM_SELF "argstorm"
#include "storm.c"
