/* Unit tests for protocol/trust.c: which socket paths root's clients accept. Owners are changed,
 * so this needs root; as another user it is skipped. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "trust.h"

static char dir[64], sock[96], err[PATH_MAX + 256];
static int lfd = -1;

static int setup(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/tracer-trust.XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, 0755) < 0)
		return -1;
	snprintf(sock, sizeof(sock), "%s/tracerd.sock", dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 4) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (lfd >= 0)
		close(lfd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void expect_refused(const char *path, int want, const char *want_err)
{
	char real[PATH_MAX] = "";

	err[0] = 0;
	assert_int_equal(trust_socket_path(path, real, sizeof(real), err, sizeof(err)), want);
	assert_string_equal(real, "");
	if (!strstr(err, want_err))
		fail_msg("error '%s' does not say '%s'", err, want_err);
}

static void test_trusted(void **state)
{
	char real[PATH_MAX], link[160];
	int fd;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(trust_socket_path(sock, real, sizeof(real), err, sizeof(err)), 0);
	assert_string_equal(real, sock);
	/* a link is followed once; what it leads to is checked */
	snprintf(link, sizeof(link), "%s/link.sock", dir);
	assert_int_equal(symlink(sock, link), 0);
	assert_int_equal(trust_socket_path(link, real, sizeof(real), err, sizeof(err)), 0);
	assert_string_equal(real, sock);
	unlink(link);
	/* the server is this process, root: SO_PEERCRED agrees */
	fd = trust_connect(sock, 1000, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
}

static void test_refused(void **state)
{
	char path[160];

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(chmod(dir, 0775), 0);
	expect_refused(sock, -EPERM, "is writable by its group (mode 0775)");
	assert_int_equal(chmod(dir, 01777), 0);
	expect_refused(sock, -EPERM, "is writable by all users (mode 1777)");
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(chown(dir, 65534, 0), 0);
	expect_refused(sock, -EPERM, "is owned by uid 65534, not root");
	assert_int_equal(trust_connect(sock, 1000, err, sizeof(err)), -EPERM);
	assert_int_equal(chown(dir, 0, 0), 0);

	snprintf(path, sizeof(path), "%s/plain", dir);
	fclose(fopen(path, "w"));
	expect_refused(path, -EPERM, "is not a socket");
	snprintf(path, sizeof(path), "%s/missing.sock", dir);
	expect_refused(path, -ENOENT, "No such file");
	expect_refused("", -EINVAL, "no socket path");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trusted),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
