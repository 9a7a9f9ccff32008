/* slurm.conf's ClusterName (slurm_conf.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "readfile.h"
#include "slurm_conf.h"

#define KEY "ClusterName="
#define KEY_LEN (sizeof(KEY) - 1)
#define SLURM_CONF_MAX (4u << 20) /* a slurm.conf of a large cluster is well within it */

static int name_char(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-';
}

int slurm_conf_cluster(const char *text, size_t len, char *out, size_t outlen)
{
	const char *p = text, *end = text + len, *val = NULL;
	size_t vlen = 0, i;
	int comment = 0;

	while (p < end) {
		const char *tok;

		if (*p == '\n') {
			comment = 0;
			p++;
			continue;
		}
		if (*p == '#')
			comment = 1;
		if (comment || isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		for (tok = p; p < end && !isspace((unsigned char)*p) && *p != '#'; p++)
			;
		if ((size_t)(p - tok) >= KEY_LEN && !strncasecmp(tok, KEY, KEY_LEN)) {
			val = tok + KEY_LEN;
			vlen = (size_t)(p - val);
		}
	}
	if (!val)
		return -ENOENT;
	if (!vlen || vlen >= outlen)
		return -EINVAL;
	for (i = 0; i < vlen; i++)
		if (!name_char(val[i]))
			return -EINVAL;
	for (i = 0; i < vlen; i++)
		out[i] = (char)tolower((unsigned char)val[i]);
	out[vlen] = 0;
	return 0;
}

int slurm_conf_cluster_read(char *out, size_t outlen)
{
	const char *path = getenv("SLURM_CONF");
	char *text;
	size_t len;
	int r;

	if (!path || path[0] != '/')
		path = SLURM_CONF_DEFAULT;
	r = readfile(path, SLURM_CONF_MAX, 0, &text, &len, NULL, 0);
	if (r < 0)
		return r;
	r = slurm_conf_cluster(text, len, out, outlen);
	free(text);
	return r;
}
