/* lanes.c - the lanes of a batch: how many submissions go at once,
 * decided from the throughput of each step and the server's signs of
 * overload (lanes.h says the rules). No clock, no lock, no I/O: the
 * caller gives the times and holds its own lock. */
#include "lanes.h"

/* Completions that end a step at n lanes: a round of each lane, and at
 * least two, so that one slow answer is not a step. */
static unsigned step_need(unsigned n)
{
	unsigned k = n * PAI__LANES_STEP;

	return k < 2 ? 2 : k;
}

static void new_step(pai__lanes *l, long long now_us)
{
	l->step_at = now_us;
	l->step_done = 0;
	l->step_need = step_need(l->now);
}

/* Lanes now n (within 1..max): whether that is a change. */
static bool set_now(pai__lanes *l, unsigned n)
{
	if (n < 1)
		n = 1;
	if (n > l->max)
		n = l->max;
	if (n == l->now)
		return false;
	l->now = n;
	l->changes++;
	return true;
}

void pai__lanes_init(pai__lanes *l, unsigned max, long long now_us)
{
	*l = (pai__lanes){0};
	l->max = max ? max : 1;
	l->now = l->base = 1;
	l->phase = PAI__LANES_START;
	l->hold = PAI__LANES_HOLD_MIN;
	new_step(l, now_us);
}

unsigned long long pai__lanes_begin(pai__lanes *l)
{
	return l->begun++;
}

/* Whether rate, at l->now lanes, pays against the base's: at least
 * PAI__LANES_GAIN of the gain the added lanes could bring. */
static bool pays(const pai__lanes *l, double rate)
{
	double most = (double)(l->now - l->base) / l->base;

	return rate >= l->base_rate * (1 + PAI__LANES_GAIN * most);
}

/* Back to the base after a step that did not pay, held there. */
static bool back_to_base(pai__lanes *l, bool longer)
{
	if (longer && l->hold < PAI__LANES_HOLD_MAX)
		l->hold *= 2;
	l->phase = PAI__LANES_HOLD;
	l->hold_left = l->hold;
	return set_now(l, l->base);
}

/* The level now paid (or is the first measured): the base; on to the
 * next, doubled or one more. */
static bool paid(pai__lanes *l, double rate, unsigned next)
{
	l->base = l->now;
	l->base_rate = rate;
	if (l->now >= l->max) {
		l->phase = PAI__LANES_HOLD;
		l->hold_left = l->hold;
		return false;
	}
	return set_now(l, next);
}

/* A step ended with throughput rate at l->now lanes. */
static bool decide(pai__lanes *l, double rate)
{
	switch (l->phase) {
	case PAI__LANES_START:
		if (l->base_rate > 0 && l->now > l->base && !pays(l, rate))
			return back_to_base(l, false);
		return paid(l, rate, l->now * 2);
	case PAI__LANES_HOLD:
		/* the base measured again: servers change */
		l->base = l->now;
		l->base_rate = rate;
		if (l->hold_left > 0 || l->now >= l->max) {
			if (l->hold_left > 0)
				l->hold_left--;
			return false;
		}
		l->phase = PAI__LANES_PROBE;
		return set_now(l, l->now + 1);
	case PAI__LANES_PROBE:
		if (!pays(l, rate))
			return back_to_base(l, true);
		l->hold = PAI__LANES_HOLD_MIN;
		return paid(l, rate, l->now + 1);
	}
	return false;
}

/* The server said it is overloaded: half the lanes, held, once per
 * episode (those begun before this answer tell of the same one). */
static bool overload(pai__lanes *l, unsigned long long seq)
{
	bool changed;

	if (seq < l->calm)
		return false;
	l->calm = l->begun;
	changed = set_now(l, l->now / 2);
	l->base = l->now;
	l->base_rate = 0;
	l->phase = PAI__LANES_HOLD;
	l->hold_left = l->hold;
	return changed;
}

bool pai__lanes_done(pai__lanes *l, unsigned long long seq, bool overloaded,
		     long long now_us)
{
	long long took;
	bool changed;

	if (overloaded) {
		changed = overload(l, seq);
		new_step(l, now_us);
		return changed;
	}
	if (seq < l->calm && l->base_rate == 0)
		return false; /* begun before the episode: not this level's */
	if (++l->step_done < l->step_need)
		return false;
	took = now_us - l->step_at;
	changed = decide(l, l->step_done * 1e6 / (double)(took > 0 ? took : 1));
	new_step(l, now_us);
	return changed;
}
