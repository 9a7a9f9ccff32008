/* Unit tests for nodeagent/argv.c: secret masking of NUL-separated command lines. Inputs are
 * copied into exact-size heap buffers so that valgrind sees any read past their end. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "argv.h"

/* Redact in[0..len) and compare with want[0..wantlen); the output must be NUL-terminated. */
static void expect_n(const char *in, size_t len, const char *want, size_t wantlen)
{
	char *copy = malloc(len ? len : 1), *out = NULL;
	size_t outlen = 12345;

	assert_non_null(copy);
	memcpy(copy, in, len);
	assert_int_equal(argv_redact(copy, len, &out, &outlen), 0);
	assert_non_null(out);
	if (outlen != wantlen || memcmp(out, want, wantlen) != 0) {
		size_t i;

		for (i = 0; i < outlen; i++)
			if (!out[i])
				out[i] = '|';
		fail_msg("redacted to <<%.*s>> (%zu bytes), want %zu bytes", (int)outlen, out,
			 outlen, wantlen);
	}
	assert_int_equal(out[outlen], 0);
	free(out);
	free(copy);
}

/* Literal NUL-separated strings: sizeof - 1 drops the literal's own terminator. */
#define EXPECT(in, want) expect_n(in, sizeof(in) - 1, want, sizeof(want) - 1)
#define UNCHANGED(in) EXPECT(in, in)

static void test_key_value(void **state)
{
	(void)state;
	EXPECT("prog\0--password=x", "prog\0--password=***");
	EXPECT("PASSWORD=x", "PASSWORD=***");
	EXPECT("env\0token=abc\0run", "env\0token=***\0run");
	EXPECT("--db-passwd=hunter2", "--db-passwd=***");
	EXPECT("--Api_Key=0123456789abcdef", "--Api_Key=***");
	EXPECT("AWS_SECRET_ACCESS_KEY=abc/def", "AWS_SECRET_ACCESS_KEY=***");
	/* the whole value goes, '=' inside it included */
	EXPECT("--token=a=b=c", "--token=***");
	/* an empty value still becomes the mask: its length is not told either */
	EXPECT("--password=", "--password=***");
	/* a secret key after a harmless one */
	EXPECT("--conf=spark.hadoop.fs.s3a.secret.key=XYZ",
	       "--conf=spark.hadoop.fs.s3a.secret.key=***");
	EXPECT("-Dtoken=abc", "-Dtoken=***");
	/* a secret word only in the value hides nothing without a later '=' */
	UNCHANGED("--input=/data/tokens/file.txt");
	/* the word right before the last '=', or one of two words that ends first */
	EXPECT("a=b,c=d,xauth=v", "a=b,c=d,xauth=***");
	EXPECT("--secret-token=v", "--secret-token=***");
	EXPECT("--tokenpassword=v", "--tokenpassword=***");
	EXPECT("a=TOKEN=v", "a=TOKEN=***");
	UNCHANGED("a=b,tok=c,password");
}

static void test_flag_then_value(void **state)
{
	(void)state;
	EXPECT("curl\0--api-key\0KEY\0https://example.org/",
	       "curl\0--api-key\0***\0https://example.org/");
	EXPECT("x\0--password\0p1\0--token\0t2\0end", "x\0--password\0***\0--token\0***\0end");
	/* only the one argument after the flag */
	EXPECT("-secret\0a\0b", "-secret\0***\0b");
	/* a flag's value that looks like a flag is still the value */
	EXPECT("--passphrase\0--not-a-flag\0z", "--passphrase\0***\0z");
	/* an empty value is kept as it is, and the next argument is not the value */
	UNCHANGED("--password\0\0positional");
}

static void test_not_secret(void **state)
{
	(void)state;
	/* short flags say nothing about what they take: only secret-looking names count */
	UNCHANGED("mysql\0-p\0hunter2");
	UNCHANGED("samtools\0sort\0-o\0out.bam\0in.bam");
	UNCHANGED("bwa\0mem\0-t\0"
		  "16\0ref.fa\0r1.fq\0r2.fq");
	UNCHANGED("make\0-j8\0CFLAGS=-O2 -g\0all");
	/* the secret word names the value, not the value itself */
	UNCHANGED("echo\0password");
	UNCHANGED("grep\0-r\0token\0.");
	/* '=' with nothing before it */
	UNCHANGED("=password");
	UNCHANGED("-");
}

static void test_url(void **state)
{
	(void)state;
	EXPECT("git\0clone\0https://user:pw@host/x", "git\0clone\0https://user:***@host/x");
	EXPECT("--url=postgres://alice:s3cr3t@db:5432/prod",
	       "--url=postgres://alice:***@db:5432/prod");
	EXPECT("ftp://u:p@h", "ftp://u:***@h");
	/* a password with ':' in it: everything after the user's ':' */
	EXPECT("https://u:a:b@h/", "https://u:***@h/");
	/* no password to hide */
	UNCHANGED("https://host:8443/path");
	UNCHANGED("https://host/a:b@c");
	UNCHANGED("user@host:/path");
	UNCHANGED("https://u:@host/");
	UNCHANGED("://");
}

static void test_url_token(void **state)
{
	(void)state;
	/* a bare user part over http(s) is a token as often as a name: it goes */
	EXPECT("git\0clone\0https://ghp_abc123@github.com/o/r",
	       "git\0clone\0https://***@github.com/o/r");
	EXPECT("https://user@host/x", "https://***@host/x");
	EXPECT("--repo=https://TOKEN@host/a.git", "--repo=https://***@host/a.git");
	EXPECT("git+https://t@h/", "git+https://***@h/");
	/* ssh's user part is a login name */
	UNCHANGED("ssh://git@github.com/o/r.git");
	UNCHANGED("git+ssh://git@host/r");
	UNCHANGED("sftp://alice@host/f");
	UNCHANGED("https://@host/");
}

static void test_mysql(void **state)
{
	(void)state;
	EXPECT("mysql\0-uroot\0-phunter2\0db", "mysql\0-uroot\0-p***\0db");
	EXPECT("/usr/bin/mysqldump\0-pS3cr3t\0--all-databases",
	       "/usr/bin/mysqldump\0-p***\0--all-databases");
	EXPECT("mariadb\0-h\0db\0-px", "mariadb\0-h\0db\0-p***");
	EXPECT("mariadb-dump\0-pX", "mariadb-dump\0-p***");
	/* behind a wrapper */
	EXPECT("srun\0-n1\0mysql\0-pX\0-e\0select 1", "srun\0-n1\0mysql\0-p***\0-e\0select 1");
	EXPECT("mysql\0--password=X", "mysql\0--password=***");
	/* -p alone prompts; what follows is the database */
	UNCHANGED("mysql\0-p\0hunter2");
	/* other programs' -pN is not a password */
	UNCHANGED("ssh\0-p2222\0host");
	UNCHANGED("mkdir\0-p\0/a/b");
	UNCHANGED("tar\0-pxf\0a.tar");
}

static void test_sshpass(void **state)
{
	(void)state;
	EXPECT("sshpass\0-p\0hunter2\0ssh\0host", "sshpass\0-p\0***\0ssh\0host");
	EXPECT("sshpass\0-phunter2\0scp\0a\0h:", "sshpass\0-p***\0scp\0a\0h:");
	/* the command it runs keeps its own -p */
	EXPECT("sshpass\0-p\0pw\0ssh\0-p\0"
	       "2222\0h",
	       "sshpass\0-p\0***\0ssh\0-p\0"
	       "2222\0h");
	EXPECT("sshpass\0-ppw\0ssh\0-p2222\0h", "sshpass\0-p***\0ssh\0-p2222\0h");
	UNCHANGED("sshpass\0-e\0ssh\0h");
}

static void test_headers(void **state)
{
	(void)state;
	EXPECT("curl\0-H\0Authorization: Bearer abc.def\0https://api/",
	       "curl\0-H\0Authorization: Bearer ***\0https://api/");
	EXPECT("curl\0--header\0authorization:Basic dXNlcjpwdw==",
	       "curl\0--header\0authorization:Basic ***");
	EXPECT("wget\0--header=Authorization: token ghp_x\0u",
	       "wget\0--header=Authorization: token ***\0u");
	EXPECT("curl\0-HAuthorization: Bearer x", "curl\0-HAuthorization: Bearer ***");
	EXPECT("curl\0-H\0X-Api-Key: K123", "curl\0-H\0X-Api-Key: ***");
	EXPECT("curl\0-H\0PRIVATE-TOKEN: glpat-x", "curl\0-H\0PRIVATE-TOKEN: ***");
	EXPECT("curl\0-H\0Cookie: session=abc", "curl\0-H\0Cookie: ***");
	EXPECT("curl\0-H\0Proxy-Authorization: Basic x",
	       "curl\0-H\0Proxy-Authorization: Basic ***");
	/* httpie's NAME:VALUE arguments */
	EXPECT("http\0GET\0api/x\0Authorization:Bearer t",
	       "http\0GET\0api/x\0Authorization:Bearer ***");
	/* harmless headers stay */
	UNCHANGED("curl\0-H\0Content-Type: application/json\0-H\0Accept: */*");
	UNCHANGED("grep\0-H\0pattern\0file");
	UNCHANGED("curl\0-H\0Authorization:");
}

static void test_curl_user(void **state)
{
	(void)state;
	EXPECT("curl\0-u\0alice:pw\0https://h/", "curl\0-u\0alice:***\0https://h/");
	EXPECT("curl\0--user\0alice:p:w", "curl\0--user\0alice:***");
	EXPECT("curl\0-ualice:pw", "curl\0-ualice:***");
	EXPECT("curl\0--proxy-user\0a:b", "curl\0--proxy-user\0a:***");
	/* no password: curl asks for it */
	UNCHANGED("curl\0-u\0alice\0https://h/");
	UNCHANGED("curl\0-ualice");
	/* a URL after -u is read as a URL */
	EXPECT("curl\0-u\0https://me:pw@x/y", "curl\0-u\0https://me:***@x/y");
	/* -u means something else elsewhere */
	UNCHANGED("sort\0-u\0a:b");
}

static void test_openssl(void **state)
{
	(void)state;
	EXPECT("openssl\0pkcs12\0-passin\0pass:hunter2\0-passout\0pass:x",
	       "openssl\0pkcs12\0-passin\0pass:***\0-passout\0pass:***");
	EXPECT("openssl\0enc\0-aes-256-cbc\0-pass\0pass:pw",
	       "openssl\0enc\0-aes-256-cbc\0-pass\0pass:***");
	EXPECT("openssl\0enc\0-k\0pw\0-in\0f", "openssl\0enc\0-k\0***\0-in\0f");
	/* a file, a variable or stdin names no secret */
	UNCHANGED("openssl\0rsa\0-passin\0file:pw.txt");
	UNCHANGED("openssl\0rsa\0-passin\0env:PW");
	UNCHANGED("openssl\0rsa\0-passin\0stdin");
	UNCHANGED("pass:");
}

static void test_url_with_secret_query(void **state)
{
	(void)state;
	/* both secrets go: the URL's password and the query value */
	EXPECT("https://user:pw@host/x?token=abc", "https://user:***@host/x?token=***");
	EXPECT("https://u:p@auth.example.org/x?a=b", "https://u:***@auth.example.org/x?a=***");
}

static void test_empty_and_separators(void **state)
{
	(void)state;
	expect_n("", 0, "", 0);
	/* one empty argument and no argument read the same */
	expect_n("\0", 1, "", 0);
	/* a trailing NUL (as in /proc/PID/cmdline) is not an extra argument */
	EXPECT("a\0b\0", "a\0b");
	/* empty arguments keep their place, the first one included */
	UNCHANGED("a\0\0b");
	UNCHANGED("\0b");
	UNCHANGED("\0\0b");
	EXPECT("\0--token=x\0\0y", "\0--token=***\0\0y");
}

static void test_secret_flag_last(void **state)
{
	(void)state;
	/* options of the tools' shapes ending the buffer, without a terminator (valgrind sees
	 * any read past it) */
	UNCHANGED("x\0-H");
	UNCHANGED("x\0--header");
	UNCHANGED("curl\0-u");
	UNCHANGED("curl\0--user");
	UNCHANGED("curl\0--proxy-user");
	UNCHANGED("sshpass\0-p");
	UNCHANGED("openssl\0-k");
	UNCHANGED("curl");
	UNCHANGED("cmd\0--password");
	EXPECT("cmd\0--password\0", "cmd\0--password");
	UNCHANGED("--token");
	EXPECT("--api-key\0", "--api-key");
}

static void test_null_input(void **state)
{
	char *out = NULL;
	size_t outlen = 99;

	(void)state;
	assert_int_equal(argv_redact(NULL, 0, &out, &outlen), 0);
	assert_int_equal(outlen, 0);
	assert_string_equal(out, "");
	free(out);
}

static void test_long_args(void **state)
{
	size_t big = 1 << 20, i;
	char *in = malloc(big), *want = malloc(big + 16);

	(void)state;
	assert_non_null(in);
	assert_non_null(want);
	/* one huge ordinary argument, no terminator */
	for (i = 0; i < big; i++)
		in[i] = 'a' + i % 26;
	expect_n(in, big, in, big);

	/* a huge secret value collapses to the mask */
	memcpy(in, "--password=", 11);
	memcpy(want, "--password=***", 14);
	expect_n(in, big, want, 14);

	/* a huge URL password */
	memcpy(in, "https://u:", 10);
	in[10] = 'k'; /* the '=' left by the previous case */
	memcpy(in + big - 3, "@h/", 3);
	memcpy(want, "https://u:***@h/", 16);
	for (i = 10; i < big - 3; i++)
		if (in[i] == '@' || in[i] == '/' || in[i] == ':')
			in[i] = 'x';
	expect_n(in, big, want, 16);
	free(in);
	free(want);
}

/* Inputs where masking grows the text the most, packed as densely as possible. */
static void dense(const char *piece, size_t plen, const char *masked, size_t mlen, size_t n)
{
	char *in = malloc(plen * n), *want = malloc(mlen * n);
	size_t i;

	assert_non_null(in);
	assert_non_null(want);
	for (i = 0; i < n; i++) {
		memcpy(in + i * plen, piece, plen);
		memcpy(want + i * mlen, masked, mlen);
	}
	/* without the final separator */
	expect_n(in, plen * n - 1, want, mlen * n - 1);
	free(in);
	free(want);
}

static void test_growth(void **state)
{
	size_t n;

	(void)state;
	for (n = 1; n <= 4096; n *= 4) {
		dense("pwd=\0", 5, "pwd=***\0", 8, n);
		dense("-pwd\0x\0", 7, "-pwd\0***\0", 9, n);
		dense("a://b:c@\0", 9, "a://b:***@\0", 11, n);
		dense("a://b:c@pwd=\0", 13, "a://b:***@pwd=***\0", 18, n);
		dense("-auth\0-auth\0", 12, "-auth\0***\0", 10, n);
		dense("x\0", 2, "x\0", 2, n);
	}
}

/* Random soup of secret-ish and ordinary pieces: the output is well-formed and never holds a
 * value that followed a secret key. */
static void test_random(void **state)
{
	static const char *const pieces[] = {
		"--password", "=", "token", "x",      "\0",    "://", ":",  "@",
		"/",	      "-", "pwd",   "SECRET", "https", "a",   "==", "api-key",
	};
	char in[512];
	unsigned seed = 12345;
	int round;

	(void)state;
	for (round = 0; round < 20000; round++) {
		size_t len = 0, outlen, i, n;
		char *out;

		seed = seed * 1103515245 + 12345;
		n = (seed >> 16) % 40;
		for (i = 0; i < n; i++) {
			const char *p;
			size_t pl;

			seed = seed * 1103515245 + 12345;
			p = pieces[(seed >> 16) % (sizeof(pieces) / sizeof(*pieces))];
			pl = *p ? strlen(p) : 1;
			if (len + pl > sizeof(in))
				break;
			memcpy(in + len, p, pl);
			len += pl;
		}
		{
			char *copy = malloc(len ? len : 1);

			assert_non_null(copy);
			memcpy(copy, in, len);
			assert_int_equal(argv_redact(copy, len, &out, &outlen), 0);
			free(copy);
		}
		assert_int_equal(out[outlen], 0);
		/* as many arguments as in the input, less a trailing empty one */
		{
			size_t nin = 1, nout = 1;

			for (i = 0; i < len; i++)
				nin += !in[i];
			if (len && !in[len - 1])
				nin--;
			for (i = 0; i < outlen; i++)
				nout += !out[i];
			if (len == 0 || (len == 1 && !in[0]))
				nin = nout = 0;
			assert_int_equal(nout, nin);
		}
		/* "token=x" never survives as such */
		for (i = 0; i + 7 <= outlen; i++)
			assert_false(memcmp(out + i, "token=x", 7) == 0);
		free(out);
	}
}

static void test_is_secret_name(void **state)
{
	(void)state;
	assert_true(argv_is_secret_name("--password", 10));
	assert_true(argv_is_secret_name("MY_TOKEN", 8));
	assert_true(argv_is_secret_name("client-secret", 13));
	assert_true(argv_is_secret_name("X-Auth", 6));
	assert_false(argv_is_secret_name("--output", 8));
	assert_false(argv_is_secret_name("-p", 2));
	assert_false(argv_is_secret_name("", 0));
	/* only len bytes are looked at */
	assert_false(argv_is_secret_name("--passwordX", 5));
	assert_true(argv_is_secret_name("tokenizer", 5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_value),
		cmocka_unit_test(test_flag_then_value),
		cmocka_unit_test(test_not_secret),
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_url_token),
		cmocka_unit_test(test_mysql),
		cmocka_unit_test(test_sshpass),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_curl_user),
		cmocka_unit_test(test_openssl),
		cmocka_unit_test(test_url_with_secret_query),
		cmocka_unit_test(test_empty_and_separators),
		cmocka_unit_test(test_secret_flag_last),
		cmocka_unit_test(test_null_input),
		cmocka_unit_test(test_long_args),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_is_secret_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
