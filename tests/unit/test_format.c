/* test_format.c - telling v0.x JSON from protocol-v2 YAML, the names of
 * formats and schedulers, and the options versions pai_job_parse takes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pai.h"

#include <string.h>

static pai_format detect(const char *name, const char *text)
{
	return pai_format_detect(name, text, strlen(text));
}

static void test_detect_by_content(void **state)
{
	(void)state;
	/* JSON objects: v2 only with a top-level protocolVersion */
	assert_int_equal(detect("<stdin>", "{\"jobName\": \"a\"}"),
			 PAI_FORMAT_V1);
	assert_int_equal(detect("<stdin>", "{\"protocolVersion\": 2}"),
			 PAI_FORMAT_V2);
	assert_int_equal(detect("<stdin>", " // c\n{ \"protocolVersion\" : \"2\"}"),
			 PAI_FORMAT_V2);
	/* nested, inside a string, or as a value: not the top level */
	assert_int_equal(detect("x", "{\"a\": {\"protocolVersion\": 2}}"),
			 PAI_FORMAT_V1);
	assert_int_equal(detect("x", "{\"a\": \"\\\"protocolVersion\\\": 2\"}"),
			 PAI_FORMAT_V1);
	assert_int_equal(detect("x", "{\"a\": \"protocolVersion\"}"),
			 PAI_FORMAT_V1);
	assert_int_equal(detect("x", "{/* \"protocolVersion\": */ \"a\": 1}"),
			 PAI_FORMAT_V1);
	/* YAML: a protocolVersion line, a mapping key, a marker, a list */
	assert_int_equal(detect("x", "# job\nname: a\nprotocolVersion: 2\n"),
			 PAI_FORMAT_V2);
	assert_int_equal(detect("x", "name: a\n"), PAI_FORMAT_V2);
	assert_int_equal(detect("x", "---\n"), PAI_FORMAT_V2);
	assert_int_equal(detect("x", "- a\n"), PAI_FORMAT_V2);
	/* text that is neither stays v1, for JSON's own diagnostics */
	assert_int_equal(detect("x", "\x01\x02"), PAI_FORMAT_V1);
	assert_int_equal(detect("x", "[1, 2]"), PAI_FORMAT_V1);
	assert_int_equal(detect("x", ""), PAI_FORMAT_V1);
	assert_int_equal(detect("x", "{"), PAI_FORMAT_V1);
	assert_int_equal(pai_format_detect("x", NULL, 5), PAI_FORMAT_V1);
}

static void test_detect_by_name(void **state)
{
	(void)state;
	assert_int_equal(detect("job.yaml", "{\"jobName\": \"a\"}"),
			 PAI_FORMAT_V2);
	assert_int_equal(detect("job.yml", ""), PAI_FORMAT_V2);
	assert_int_equal(detect("job.json", "name: a\n"), PAI_FORMAT_V1);
	/* the content's protocolVersion wins over a .json name */
	assert_int_equal(detect("job.json", "protocolVersion: 2\n"),
			 PAI_FORMAT_V2);
	assert_int_equal(detect(NULL, "name: a\n"), PAI_FORMAT_V2);
}

static void test_names(void **state)
{
	pai_format f;
	pai_scheduler s;

	(void)state;
	assert_int_equal(pai_format_from_name(&f, "v2"), PAI_OK);
	assert_int_equal(f, PAI_FORMAT_V2);
	assert_int_equal(pai_format_from_name(&f, "v1"), PAI_OK);
	assert_int_equal(f, PAI_FORMAT_V1);
	assert_int_equal(pai_format_from_name(&f, "auto"), PAI_OK);
	assert_int_equal(f, PAI_FORMAT_AUTO);
	assert_int_equal(pai_format_from_name(&f, "V2"), PAI_EINVAL);
	assert_int_equal(pai_format_from_name(NULL, "v2"), PAI_EINVAL);
	assert_string_equal(pai_format_name(PAI_FORMAT_V2), "v2");
	assert_string_equal(pai_format_name(PAI_FORMAT_V1), "v1");
	assert_string_equal(pai_format_name(PAI_FORMAT_AUTO), "auto");
	assert_int_equal(pai_scheduler_from_name(&s, "default"), PAI_OK);
	assert_int_equal(s, PAI_SCHEDULER_DEFAULT);
	assert_int_equal(pai_scheduler_from_name(&s, "hived"), PAI_OK);
	assert_int_equal(s, PAI_SCHEDULER_HIVED);
	assert_int_equal(pai_scheduler_from_name(&s, "yarn"), PAI_EINVAL);
	assert_string_equal(pai_scheduler_name(PAI_SCHEDULER_HIVED), "hived");
	assert_string_equal(pai_scheduler_name(PAI_SCHEDULER_DEFAULT),
			    "default");
}

/* Version 1 options (a dialect only) still work and mean v1 unless the
 * content says otherwise; an unknown version is refused. */
static void test_options_versions(void **state)
{
	static const char v1[] = "{\"jobName\": \"a\", \"image\": \"i\", "
				 "\"taskRoles\": [{\"name\": \"r\", "
				 "\"taskNumber\": 1, \"cpuNumber\": 1, "
				 "\"memoryMB\": 100, \"gpuNumber\": 0, "
				 "\"command\": \"true\"}]}";
	pai_job_options o = PAI_JOB_OPTIONS_INIT;
	pai_diags *d = NULL;
	pai_job *job = NULL;

	(void)state;
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	o.version = 1;
	assert_int_equal(pai_job_parse(&job, d, "a.json", v1, strlen(v1), &o),
			 PAI_OK);
	assert_int_equal(pai_job_format(job), PAI_FORMAT_V1);
	pai_job_free(job);
	o.version = PAI_JOB_OPTIONS_VERSION;
	o.format = PAI_FORMAT_V1;
	assert_int_equal(pai_job_parse(&job, d, "a.yaml", v1, strlen(v1), &o),
			 PAI_OK);
	assert_int_equal(pai_job_format(job), PAI_FORMAT_V1);
	pai_job_free(job);
	o.version = PAI_JOB_OPTIONS_VERSION + 1;
	assert_int_equal(pai_job_parse(&job, d, "a.json", v1, strlen(v1), &o),
			 PAI_EINVAL);
	assert_null(job);
	assert_int_equal(pai_job_format(NULL), PAI_FORMAT_V1);
	pai_diags_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_detect_by_content),
	    cmocka_unit_test(test_detect_by_name),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_options_versions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
