/* Removing a pin set (pinset.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pinset.h"

void pinset_clear_dir(const char *dir, const char *prefix)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_type != DT_DIR &&
		    (!prefix || strncmp(e->d_name, prefix, strlen(prefix)) == 0))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

int pinset_remove(const char *dir)
{
	char retired[4096];

	if (access(dir, F_OK) < 0)
		return -errno;
	if ((size_t)snprintf(retired, sizeof(retired), "%s/" PINSET_RETIRED, dir) <
	    sizeof(retired)) {
		pinset_clear_dir(retired, NULL);
		rmdir(retired);
	}
	pinset_clear_dir(dir, NULL);
	return rmdir(dir) < 0 ? -errno : 0;
}
