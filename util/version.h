/* tracer's release: what its exports name as service.version and the instrumentation scope's. */
#ifndef TRACER_VERSION_H
#define TRACER_VERSION_H

#define TRACER_VERSION "0.5.0"

#endif
