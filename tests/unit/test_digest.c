/* test_digest.c - MD5 (lib/sys/md5.c) against RFC 1321's test suite and
 * lengths around the padding boundaries, and the v1.x framework name
 * built on it (lib/job/job_edit.c). Expected digests: RFC 1321 appendix
 * A.5, and Python's hashlib for the generated inputs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "job/job.h"

#include <stdlib.h>
#include <string.h>

static void assert_md5(const void *data, size_t len, const char *want)
{
	char got[33];

	pai__md5_hex(got, data, len);
	assert_string_equal(got, want);
}

static void test_rfc1321_suite(void **state)
{
	static const struct {
		const char *in, *md5;
	} suite[] = {
	    {"", "d41d8cd98f00b204e9800998ecf8427e"},
	    {"a", "0cc175b9c0f1b6a831c399e269772661"},
	    {"abc", "900150983cd24fb0d6963f7d28e17f72"},
	    {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
	    {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
	    {"1234567890123456789012345678901234567890123456789012345678901234"
	     "5678901234567890",
	     "57edf4a22be3c955ac49da2e2107b67a"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(suite) / sizeof(suite[0]); i++)
		assert_md5(suite[i].in, strlen(suite[i].in), suite[i].md5);
}

/* 55, 56, 63, 64, 65, 119 and 120 bytes: the length word fits in the
 * last block, or needs one more; a whole block, and more than one */
static void test_padding_boundaries(void **state)
{
	static const struct {
		size_t n;
		const char *md5;
	} cases[] = {
	    {55, "8d24280288a696559fd8d5aa1b6d8c6e"},
	    {56, "ef2c72b7254c92459e498eddd4ace573"},
	    {63, "c4c8c6d513f4e1604eb18508a1769364"},
	    {64, "a2fcb39a253b9b785b1f97518fa37683"},
	    {65, "e49fe82d0bb12967a196c85de313e446"},
	    {119, "1640deea49ebb258ec6ede18d4b2d2d7"},
	    {120, "05f879f7b542a7ebf0605adff67d4423"},
	    {1000, "de809ff794e91b68f9e91a2b7030bcb0"},
	};
	unsigned char data[1000];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)((i * 7) & 255);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_md5(data, cases[i].n, cases[i].md5);
}

static void assert_framework(const char *user, const char *job,
			     const char *want)
{
	char *got = pai__v2_framework_name(user, job);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

/* encodeName() of the v1.8.0 rest-server (models/v2/utils/name.js) */
static void test_framework_name(void **state)
{
	(void)state;
	/* md5("alice~hello-distributed") */
	assert_framework("alice", "hello-distributed",
			 "f22bdd8456b8d906e766f85ccc1db6d8");
	/* "unknown..." is not hashed: the rest, as convertName() makes it */
	assert_framework("unknownUser", "Job_1", "userjob1");
	assert_framework("unknown", "x", "x");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rfc1321_suite),
	    cmocka_unit_test(test_padding_boundaries),
	    cmocka_unit_test(test_framework_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
