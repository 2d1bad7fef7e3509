/* test_lanes.c - the lanes controller of a batch (lib/client/lanes.c)
 * fed with made-up measurements: it starts at one lane, doubles while a
 * step pays, falls back when one does not, probes one lane more with a
 * backoff, halves once per overload episode; and, against simulated
 * servers in virtual time, keeps a serializing server and one that
 * slows with company at one lane and fills the lanes of one that
 * overlaps slow requests. Not timed: the
 * clock is the test's. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "client/lanes.h"

#include <string.h>

#define MS 1000LL /* the controller counts in µs */

/* k completions at the current level, begun now, each `each` µs apart,
 * starting at *t: whether the last one changed the lanes. */
static bool feed(pai__lanes *l, long long *t, unsigned k, long long each)
{
	bool changed = false;
	unsigned i;

	for (i = 0; i < k; i++) {
		unsigned long long seq = pai__lanes_begin(l);

		*t += each;
		changed = pai__lanes_done(l, seq, false, *t);
	}
	return changed;
}

static void test_starts_at_one_and_doubles(void **state)
{
	pai__lanes l;
	long long t = 0;

	(void)state;
	pai__lanes_init(&l, 8, t);
	assert_int_equal(l.now, 1);
	/* a step of two at one lane: 10 ms each */
	assert_false(feed(&l, &t, 1, 10 * MS));
	assert_true(feed(&l, &t, 1, 10 * MS));
	assert_int_equal(l.now, 2);
	/* twice the throughput at two: doubled again, and again */
	assert_true(feed(&l, &t, 2, 5 * MS));
	assert_int_equal(l.now, 4);
	assert_true(feed(&l, &t, 4, 2500));
	assert_int_equal(l.now, 8);
	/* at the most: held there however well it goes */
	assert_false(feed(&l, &t, 64, 1250));
	assert_int_equal(l.now, 8);
	assert_int_equal(l.phase, PAI__LANES_HOLD);
}

static void test_falls_back_when_a_step_does_not_pay(void **state)
{
	pai__lanes l;
	long long t = 0;
	unsigned i;

	(void)state;
	pai__lanes_init(&l, 8, t);
	feed(&l, &t, 2, 5 * MS);
	assert_int_equal(l.now, 2);
	/* the same throughput at two lanes (a server that serializes):
	 * back to one, held */
	assert_true(feed(&l, &t, 2, 5 * MS));
	assert_int_equal(l.now, 1);
	assert_int_equal(l.phase, PAI__LANES_HOLD);
	/* a 1.4x gain is not half of the 2x that one more lane could
	 * bring either: after the hold's steps, a probe, which fails */
	for (i = 0; i < PAI__LANES_HOLD_MIN; i++)
		assert_false(feed(&l, &t, 2, 5 * MS));
	assert_true(feed(&l, &t, 2, 5 * MS));
	assert_int_equal(l.now, 2);
	assert_int_equal(l.phase, PAI__LANES_PROBE);
	assert_true(feed(&l, &t, 2, 3600));
	assert_int_equal(l.now, 1);
	/* the next probe waits twice as long */
	assert_int_equal(l.hold, 2 * PAI__LANES_HOLD_MIN);
	for (i = 0; i < 2 * PAI__LANES_HOLD_MIN; i++)
		assert_false(feed(&l, &t, 2, 5 * MS));
	assert_true(feed(&l, &t, 2, 5 * MS));
	assert_int_equal(l.now, 2);
	/* this one pays (1.6x): one more lane at a time from here */
	assert_true(feed(&l, &t, 2, 3125));
	assert_int_equal(l.now, 3);
	assert_int_equal(l.hold, PAI__LANES_HOLD_MIN);
	assert_int_equal(l.phase, PAI__LANES_PROBE);
}

static void test_halves_once_per_overload(void **state)
{
	pai__lanes l;
	long long t = 0;
	unsigned long long early[8], late;
	unsigned i;

	(void)state;
	pai__lanes_init(&l, 8, t);
	feed(&l, &t, 2, 8 * MS);
	feed(&l, &t, 2, 4 * MS);
	feed(&l, &t, 4, 2 * MS);
	assert_int_equal(l.now, 8);
	/* eight under way; the first answer says 429: half */
	for (i = 0; i < 8; i++)
		early[i] = pai__lanes_begin(&l);
	assert_true(pai__lanes_done(&l, early[0], true, t += MS));
	assert_int_equal(l.now, 4);
	/* the others of that round say so too: the same episode */
	for (i = 1; i < 8; i++)
		assert_false(pai__lanes_done(&l, early[i], true, t += MS));
	assert_int_equal(l.now, 4);
	assert_int_equal(l.phase, PAI__LANES_HOLD);
	/* one begun after it says so again: a new episode, half again */
	late = pai__lanes_begin(&l);
	assert_true(pai__lanes_done(&l, late, true, t += MS));
	assert_int_equal(l.now, 2);
	late = pai__lanes_begin(&l);
	assert_true(pai__lanes_done(&l, late, true, t += MS));
	assert_int_equal(l.now, 1);
	/* never below one */
	late = pai__lanes_begin(&l);
	assert_false(pai__lanes_done(&l, late, true, t += MS));
	assert_int_equal(l.now, 1);
	/* and grows again, one at a time, once it is calm and it pays */
	for (i = 0; i <= PAI__LANES_HOLD_MIN; i++)
		feed(&l, &t, 2, 10 * MS);
	assert_int_equal(l.now, 2);
	assert_true(feed(&l, &t, 2, 5 * MS));
	assert_int_equal(l.now, 3);
}

/* ---- against simulated servers, in virtual time ---------------------- */

enum model { SERIAL, OVERLAP, CROWD };

/* n submissions through the controller (at most max lanes) to a server
 * that serializes them (5 ms each, one at a time), overlaps them
 * (100 ms each, all at once) or slows with company (5 ms x k^2 with k
 * under way), the client spending 0.2 ms on each: the
 * total time in µs; the most lanes used into *most. */
static long long simulate(enum model m, unsigned n, unsigned max,
			  unsigned *most)
{
	struct {
		unsigned long long seq;
		long long end;
	} run[16];
	unsigned nrun = 0, next = 0, done = 0, i, first;
	long long t = 0, server_free = 0;
	pai__lanes l;

	pai__lanes_init(&l, max, t);
	*most = 0;
	while (done < n) {
		while (nrun < l.now && next < n) {
			long long arrive = t + 200;

			run[nrun].seq = pai__lanes_begin(&l);
			if (m == SERIAL) {
				if (server_free < arrive)
					server_free = arrive;
				server_free += 5 * MS;
				run[nrun].end = server_free;
			} else if (m == CROWD) {
				long long k = nrun + 1;

				run[nrun].end = arrive + 5 * MS * k * k;
			} else {
				run[nrun].end = arrive + 100 * MS;
			}
			nrun++;
			next++;
		}
		if (nrun > *most)
			*most = nrun;
		for (first = 0, i = 1; i < nrun; i++)
			if (run[i].end < run[first].end)
				first = i;
		t = run[first].end;
		pai__lanes_done(&l, run[first].seq, false, t);
		run[first] = run[--nrun];
		done++;
	}
	return t;
}

static void test_serial_server_keeps_one_lane(void **state)
{
	unsigned most;
	long long one = 40 * (5 * MS + 200);
	long long took = simulate(SERIAL, 40, 8, &most);

	(void)state;
	/* one probe of two lanes at most, and within 1.2x of one
	 * connection (here: better, the client's part overlaps) */
	assert_true(most <= 2);
	print_message("serial: %lld us vs %lld\n", took, one);
	assert_true(took <= one * 12 / 10);
}

static void test_overlapping_server_gets_the_lanes(void **state)
{
	unsigned most;
	long long one = 40 * (100 * MS + 200);
	long long took = simulate(OVERLAP, 40, 8, &most);

	(void)state;
	assert_int_equal(most, 8);
	/* at least 4x faster than one connection */
	print_message("overlap: %lld us vs %lld\n", took, one);
	assert_true(took * 4 <= one);
}

static void test_crowded_server_keeps_one_lane(void **state)
{
	unsigned most;
	long long one = 40 * (5 * MS + 200);
	long long took = simulate(CROWD, 40, 8, &most);

	(void)state;
	print_message("crowd: %lld us vs %lld\n", took, one);
	/* the probes of two lanes cost a little: within 1.5x */
	assert_true(most <= 2);
	assert_true(took * 2 <= one * 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_starts_at_one_and_doubles),
	    cmocka_unit_test(test_falls_back_when_a_step_does_not_pay),
	    cmocka_unit_test(test_halves_once_per_overload),
	    cmocka_unit_test(test_serial_server_keeps_one_lane),
	    cmocka_unit_test(test_overlapping_server_gets_the_lanes),
	    cmocka_unit_test(test_crowded_server_keeps_one_lane),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
