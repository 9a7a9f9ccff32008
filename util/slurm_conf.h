/* What tracerd reads of slurm.conf: the cluster's name, for what it exports of the node. */
#ifndef TRACER_SLURM_CONF_H
#define TRACER_SLURM_CONF_H

#include <stddef.h>

#define SLURM_CONF_DEFAULT "/etc/slurm/slurm.conf"

/* ClusterName in slurm.conf's text (len bytes): keys in any case, several key=value per line,
 * '#' to the end of a line a comment, the last setting wins. Lowercased, as Slurm has it (and
 * gives jobs as SLURM_CLUSTER_NAME). 0 with out filled; -ENOENT when not set; -EINVAL when it
 * holds anything but letters, digits, '.', '_' and '-', or does not fit out[outlen]. */
int slurm_conf_cluster(const char *text, size_t len, char *out, size_t outlen);
/* The same from the slurm.conf that Slurm's commands read: $SLURM_CONF, else
 * SLURM_CONF_DEFAULT. -errno when it cannot be read. */
int slurm_conf_cluster_read(char *out, size_t outlen);

#endif
