/* Who is at the other end of a TCP connection (nodeagent/server/tcp_peer.c): over loopback the
 * uid that owns the connecting socket, whoever made it, whatever address it came from; two
 * connections of one user are the same peer, of two users not. Root is needed to connect as
 * another uid; without it that case is skipped. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "tcp_peer.h"

#define OTHER_UID 54321

static int listener(struct sockaddr_in *at)
{
	socklen_t len = sizeof(*at);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(at, 0, sizeof(*at));
	at->sin_family = AF_INET;
	at->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)at, sizeof(*at)), 0);
	assert_int_equal(listen(fd, 8), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)at, &len), 0);
	return fd;
}

/* A connection to at from a socket made as uid (-1: ours), kept open by a child until its
 * pipe closes (a later child holds an earlier one's pipe too: release them last first); the
 * accepted end returned */
static int connect_as(int lfd, const struct sockaddr_in *at, uid_t uid, int *hold, pid_t *pid)
{
	int p[2], fd;
	char c;

	assert_int_equal(pipe(p), 0);
	*pid = fork();
	assert_true(*pid >= 0);
	if (*pid == 0) {
		close(p[1]);
		if (uid != (uid_t)-1 && setuid(uid) < 0)
			_exit(1);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (const struct sockaddr *)at, sizeof(*at)) < 0)
			_exit(2);
		(void)!read(p[0], &c, 1); /* until the test is done with it */
		_exit(0);
	}
	close(p[0]);
	*hold = p[1];
	fd = accept(lfd, NULL, NULL);
	assert_true(fd >= 0);
	return fd;
}

static void release(int hold, pid_t pid)
{
	int status;

	close(hold);
	waitpid(pid, &status, 0);
}

static void test_loopback_owner(void **state)
{
	struct sockaddr_in at;
	struct tcp_peer a, b, c;
	int lfd = listener(&at), fa, fb, fc, ha, hb, hc;
	pid_t pa, pb, pc;
	(void)state;

	fa = connect_as(lfd, &at, (uid_t)-1, &ha, &pa);
	fb = connect_as(lfd, &at, (uid_t)-1, &hb, &pb);
	tcp_peer_of(fa, &a);
	tcp_peer_of(fb, &b);
	assert_int_equal(a.kind, TCP_PEER_UID);
	assert_int_equal(a.uid, getuid());
	assert_true(tcp_peer_same(&a, &b)); /* two sockets, two ports: one user */
	if (getuid() == 0) {
		fc = connect_as(lfd, &at, OTHER_UID, &hc, &pc);
		tcp_peer_of(fc, &c);
		assert_int_equal(c.kind, TCP_PEER_UID);
		assert_int_equal(c.uid, OTHER_UID);
		assert_false(tcp_peer_same(&a, &c));
		close(fc);
		release(hc, pc);
	}
	close(fa);
	close(fb);
	release(hb, pb);
	release(ha, pa);
	close(lfd);
}

static void test_unknown(void **state)
{
	struct tcp_peer p, q;
	int sv[2];
	(void)state;

	/* not TCP: nobody to tell, and never the same as another unknown */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	tcp_peer_of(sv[0], &p);
	tcp_peer_of(sv[1], &q);
	assert_int_equal(p.kind, TCP_PEER_UNKNOWN);
	assert_false(tcp_peer_same(&p, &q));
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loopback_owner),
		cmocka_unit_test(test_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
