/* test_slurm_cmd_out.c - the readers of what Slurm's commands print on a
 * login node (lib/client/api/slurm/slurm_cmd_out.c), on what Slurm
 * 24.11's sbatch, squeue and sacct printed (the fuzz target's seeds,
 * tests/fuzz/seeds/slurm_cmd_out/: one byte for the reader, then the
 * output), and on outputs one byte either side of each rule; and the
 * login node's URI (slurm_ssh.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pai.h"
#include "client/api/slurm/slurm_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A seed's output (after its first byte): new, its length in *len. */
static char *seed(const char *name, size_t *len)
{
	const char *top = getenv("PAI_SRCDIR");
	char path[1024], *buf = malloc(1 << 20);
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fuzz/seeds/slurm_cmd_out/%s",
		 top ? top : ".", name);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_non_null(buf);
	assert_true(fgetc(f) != EOF);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static int parsable(long long *id, char *cl, size_t size, const char *s)
{
	return pai__slurm_parsable_read(id, cl, size, s, strlen(s));
}

static void test_parsable(void **state)
{
	char cl[8], *out;
	long long id;
	size_t n;

	(void)state;
	out = seed("24.11.5-sbatch", &n);
	assert_int_equal(pai__slurm_parsable_read(&id, cl, sizeof(cl), out, n),
			 PAI_OK);
	assert_true(id > 0);
	assert_string_equal(cl, "");
	free(out);
	assert_int_equal(parsable(&id, cl, sizeof(cl), "42"), PAI_OK);
	assert_int_equal(id, 42);
	assert_int_equal(parsable(&id, cl, sizeof(cl), "42;c-1.x\n"), PAI_OK);
	assert_int_equal(id, 42);
	assert_string_equal(cl, "c-1.x");
	/* the cluster's name: 7 bytes fit in 8, 8 do not */
	assert_int_equal(parsable(&id, cl, sizeof(cl), "7;abcdefg"), PAI_OK);
	assert_int_equal(parsable(&id, cl, sizeof(cl), "7;abcdefgh"),
			 PAI_EPROTOCOL);
	assert_int_equal(id, 0);
	/* 18 digits are an id, 19 are not */
	assert_int_equal(parsable(&id, cl, sizeof(cl), "123456789012345678"),
			 PAI_OK);
	assert_int_equal(parsable(&id, cl, sizeof(cl), "1234567890123456789"),
			 PAI_EPROTOCOL);
	/* anything else refused */
	const char *bad[] = {"",
			     "\n",
			     "0",
			     "42\n\n",
			     " 42",
			     "42 ",
			     "42;",
			     ";c",
			     "4a",
			     "42;a b",
			     "42;a\n\n",
			     "-1",
			     "Submitted batch job 42\n",
			     "42;$(x)"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		id = 5;
		assert_int_equal(parsable(&id, cl, sizeof(cl), bad[i]),
				 PAI_EPROTOCOL);
		assert_int_equal(id, 0);
	}
}

static void test_json(void **state)
{
	json_t *jobs, *j;
	char *out;
	size_t n, i;
	int running = 0;

	(void)state;
	out = seed("24.11.5-squeue-json", &n);
	assert_int_equal(pai__slurm_cmd_json(&jobs, out, n, 0), PAI_OK);
	assert_true(json_array_size(jobs) > 0);
	json_array_foreach(jobs, i, j)
	{
		assert_true(json_is_integer(json_object_get(j, "job_id")));
		assert_true(json_is_string(json_object_get(j, "job_state")));
		running +=
		    strcmp(pai__json_str(j, "job_state"), "RUNNING") == 0;
	}
	assert_true(running > 0);
	json_decref(jobs);
	/* cut short: no JSON */
	assert_int_equal(pai__slurm_cmd_json(&jobs, out, n / 2, 0),
			 PAI_EPROTOCOL);
	assert_null(jobs);
	free(out);
	out = seed("24.11.5-sacct-json", &n);
	assert_int_equal(pai__slurm_cmd_json(&jobs, out, n, 1), PAI_OK);
	assert_true(json_array_size(jobs) > 0);
	json_array_foreach(jobs, i, j)
	{
		assert_true(json_is_true(json_object_get(j, "accounting")));
		assert_true(json_is_string(json_object_get(j, "job_state")));
	}
	json_decref(jobs);
	free(out);
	/* squeue's plain-text error for an unknown id, a list not there */
	const char *e = "slurm_load_jobs error: Invalid job id specified\n";
	assert_int_equal(pai__slurm_cmd_json(&jobs, e, strlen(e), 0),
			 PAI_EPROTOCOL);
	assert_int_equal(pai__slurm_cmd_json(&jobs, "{}", 2, 0), PAI_EPROTOCOL);
	assert_int_equal(
	    pai__slurm_cmd_json(&jobs, "{\"jobs\":[],\"jobs\":[]}", 21, 0),
	    PAI_EPROTOCOL);
	assert_int_equal(pai__slurm_cmd_json(&jobs, "{\"jobs\":[]}", 11, 1),
			 PAI_OK);
	assert_int_equal(json_array_size(jobs), 0);
	json_decref(jobs);
}

static void test_spec(void **state)
{
	char *s;

	(void)state;
	s = pai__slurm_fmt_spec(0);
	assert_string_equal(s, "%A\x1f%j\x1f%u\x1f%T\x1f%r\x1f%P\x1f%N\x1f%k");
	free(s);
	s = pai__slurm_fmt_spec(1);
	assert_string_equal(s, "JobIDRaw,JobName,User,State,ExitCode,"
			       "Partition,NodeList,Comment");
	free(s);
}

static int fmt(json_t **jobs, size_t *bad, const char *s, int acct)
{
	return pai__slurm_fmt_read(jobs, bad, s, strlen(s), acct);
}

static void test_format(void **state)
{
	json_t *jobs, *j;
	char *out;
	size_t n, bad;

	(void)state;
	out = seed("24.11.5-squeue-format", &n);
	assert_int_equal(pai__slurm_fmt_read(&jobs, &bad, out, n, 0), PAI_OK);
	assert_int_equal(json_array_size(jobs), 2);
	j = json_array_get(jobs, 1);
	/* a name with '|' and a space kept; squeue's "(null)" is none */
	assert_string_equal(pai__json_str(j, "name"), "a b|c");
	assert_string_equal(pai__json_str(j, "comment"), "paictl:1 x");
	assert_string_equal(pai__json_str(j, "job_state"), "RUNNING");
	assert_null(json_object_get(json_array_get(jobs, 0), "comment"));
	assert_null(json_object_get(json_array_get(jobs, 0), "nodes"));
	json_decref(jobs);
	free(out);
	out = seed("24.11.5-sacct-format", &n);
	assert_int_equal(pai__slurm_fmt_read(&jobs, &bad, out, n, 1), PAI_OK);
	/* the steps (1.batch) are no jobs */
	assert_true(json_array_size(jobs) >= 2);
	j = json_array_get(jobs, 0);
	assert_int_equal(json_integer_value(json_object_get(j, "job_id")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "exit_code")),
			 0);
	assert_true(json_is_true(json_object_get(j, "accounting")));
	json_decref(jobs);
	free(out);

	/* exit codes as wait statuses; a state's first word */
	assert_int_equal(fmt(&jobs, &bad,
			     "9\x1fn\x1fu\x1f"
			     "CANCELLED by 0\x1f"
			     "0:15\x1fp\x1fn1\x1f\n"
			     "10\x1fn\x1fu\x1f"
			     "FAILED\x1f"
			     "3:0\x1fp\x1fn1\x1f",
			     1),
			 PAI_OK);
	j = json_array_get(jobs, 0);
	assert_string_equal(pai__json_str(j, "job_state"), "CANCELLED");
	assert_int_equal(json_integer_value(json_object_get(j, "exit_code")),
			 15);
	j = json_array_get(jobs, 1);
	assert_int_equal(json_integer_value(json_object_get(j, "exit_code")),
			 3 << 8);
	json_decref(jobs);

	/* strict: 7 or 9 columns, a bad id, exit code or state, each named
	 * by its line */
	const char *bad_out[] = {
	    "1\x1fn\x1fu\x1fR\x1fr\x1fp\x1fn1\n",
	    "1\x1fn\x1fu\x1fR\x1fr\x1fp\x1fn1\x1f"
	    "c\x1fx\n",
	    "x\x1fn\x1fu\x1fR\x1fr\x1fp\x1fn1\x1f"
	    "c\n",
	    "0\x1fn\x1fu\x1fR\x1fr\x1fp\x1fn1\x1f"
	    "c\n",
	    "1\x1fn\x1fu\x1f\x1fr\x1fp\x1fn1\x1f"
	    "c\n",
	};
	for (size_t i = 0; i < sizeof(bad_out) / sizeof(bad_out[0]); i++) {
		char two[256];

		snprintf(two, sizeof(two),
			 "1\x1fn\x1fu\x1fR\x1fr\x1fp\x1fn1\x1f"
			 "c\n%s",
			 bad_out[i]);
		jobs = (json_t *)1;
		assert_int_equal(fmt(&jobs, &bad, two, 0), PAI_EPROTOCOL);
		assert_null(jobs);
		assert_int_equal(bad, 2);
	}
	const char *bad_exit[] = {"1:", ":1", "256:0", "0:128", "a:0", "0"};
	for (size_t i = 0; i < sizeof(bad_exit) / sizeof(bad_exit[0]); i++) {
		char one[256];

		snprintf(one, sizeof(one),
			 "1\x1fn\x1fu\x1fR\x1f%s\x1fp\x1fn1\x1f"
			 "c",
			 bad_exit[i]);
		assert_int_equal(fmt(&jobs, &bad, one, 1), PAI_EPROTOCOL);
		assert_int_equal(bad, 1);
	}
	/* a field of PAI__SLURM_FIELD_MAX bytes fits, one more does not */
	for (size_t extra = 0; extra < 2; extra++) {
		size_t len = PAI__SLURM_FIELD_MAX + extra;
		char *big = malloc(len + 64);

		assert_non_null(big);
		strcpy(big, "1\x1f");
		memset(big + 2, 'n', len);
		strcpy(big + 2 + len, "\x1fu\x1fR\x1fr\x1fp\x1fn1\x1f"
				      "c");
		assert_int_equal(fmt(&jobs, &bad, big, 0),
				 extra ? PAI_EPROTOCOL : PAI_OK);
		if (!extra) {
			assert_int_equal(strlen(pai__json_str(
					     json_array_get(jobs, 0), "name")),
					 len);
			json_decref(jobs);
		}
		free(big);
	}
	/* no output: no jobs */
	assert_int_equal(fmt(&jobs, &bad, "", 0), PAI_OK);
	assert_int_equal(json_array_size(jobs), 0);
	json_decref(jobs);
}

/* --format's lines as --json's answer: squeue's jobs as read, sacct's
 * in accounting's shape that reads back to the same jobs; a bad line
 * refused the same. */
static void test_format_answer(void **state)
{
	json_t *answer, *jobs, *back, *want;
	char *out;
	size_t n, bad, i;
	const char *k;
	json_t *v;

	(void)state;
	out = seed("24.11.5-squeue-format", &n);
	assert_int_equal(pai__slurm_fmt_answer(&answer, &bad, out, n, 0),
			 PAI_OK);
	assert_int_equal(pai__slurm_jobs_read(answer, &jobs), PAI_OK);
	assert_int_equal(json_array_size(jobs), 2);
	assert_string_equal(pai__json_str(json_array_get(jobs, 1), "name"),
			    "a b|c");
	json_decref(answer);
	free(out);
	out = seed("24.11.5-sacct-format", &n);
	assert_int_equal(pai__slurm_fmt_read(&want, &bad, out, n, 1), PAI_OK);
	assert_int_equal(pai__slurm_fmt_answer(&answer, &bad, out, n, 1),
			 PAI_OK);
	assert_int_equal(pai__slurm_acct_jobs_read(answer, &back), PAI_OK);
	assert_int_equal(json_array_size(back), json_array_size(want));
	/* every member read from the lines, read back the same */
	for (i = 0; i < json_array_size(want); i++)
		json_object_foreach(json_array_get(want, i), k, v)
		{
			assert_true(json_equal(
			    v, json_object_get(json_array_get(back, i), k)));
		}
	json_decref(back);
	json_decref(want);
	json_decref(answer);
	free(out);
	assert_int_equal(pai__slurm_fmt_answer(&answer, &bad, "1\x1fx\n", 4,
					       0),
			 PAI_EPROTOCOL);
	assert_null(answer);
	assert_int_equal(bad, 1);
}

/* A login node's URI (slurm_ssh.c): ssh://[user@]host[:port][/]. */
static void test_login_uri(void **state)
{
	static const struct {
		const char *uri, *user, *host;
		long port;
	} good[] = {
	    {"ssh://alice@login.example.org", "alice", "login.example.org", 22},
	    {"ssh://login:2222", NULL, "login", 2222},
	    {"ssh://a@[::1]:65535/", "a", "::1", 65535},
	    {"ssh://a@h:1", "a", "h", 1},
	};
	static const char *bad[] = {
	    "ssh://",	      "ssh://@h",	 "ssh://h:0",	  "ssh://h:65536",
	    "ssh://h/path", "ssh://h:22x", "https://h",	  "ssh://h:",
	    "ssh://[::1",   "ssh://a b",   "ssh://h:22/x", "ssh:/h",
	};
	char *user, *host;
	long port;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(
		    pai__slurm_login_uri(good[i].uri, &user, &host, &port),
		    PAI_OK);
		if (good[i].user)
			assert_string_equal(user, good[i].user);
		else
			assert_null(user);
		assert_string_equal(host, good[i].host);
		assert_int_equal(port, good[i].port);
		free(user);
		free(host);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(pai__slurm_login_uri(bad[i], &user, &host,
						      &port),
				 PAI_EINVAL);
		assert_null(user);
		assert_null(host);
	}
}

/* What a command printed, in a message: its first line, control
 * characters (a terminal's escapes) as '?', within the room given. */
static void test_ssh_line(void **state)
{
	pai__buf b = PAI__BUF_INIT;
	char line[8];

	(void)state;
	pai__buf_put(&b, "a\x1b[2Jb\x7f\n2nd", 10);
	pai__slurm_ssh_line(line, sizeof(line), &b);
	assert_string_equal(line, "a?[2Jb?");
	b.len = 0;
	pai__buf_puts(&b, "1234567");
	pai__slurm_ssh_line(line, sizeof(line), &b);
	assert_string_equal(line, "1234567");
	pai__buf_puts(&b, "8");
	pai__slurm_ssh_line(line, sizeof(line), &b);
	assert_string_equal(line, "1234567");
	b.len = 0;
	pai__slurm_ssh_line(line, sizeof(line), &b);
	assert_string_equal(line, "");
	pai__buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parsable),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_spec),
	    cmocka_unit_test(test_format),
	    cmocka_unit_test(test_format_answer),
	    cmocka_unit_test(test_login_uri),
	    cmocka_unit_test(test_ssh_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
