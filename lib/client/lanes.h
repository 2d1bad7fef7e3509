/* lanes.h - how many submissions of a batch go at once (batch.c): a
 * controller fed with what each submission measured, deciding alone, so
 * that its rules can be tested with made-up measurements (lanes.c).
 *
 * A server that serializes requests, or slows under many connections,
 * serves a batch best on one connection; one that overlaps slow
 * requests, on many. So lanes start at one and grow while each step
 * raises the throughput: doubling at first (TCP's slow start), one at a
 * time once a step did not pay (additive increase, with a probe that
 * backs off each time it does not pay either); and they halve when the
 * server says it is overloaded, a 429, a 503 or a timeout
 * (multiplicative decrease), once per such episode, as TCP halves once
 * per window and client-go's flow control backs off. */
#ifndef PAI_LANES_H
#define PAI_LANES_H

#include <stdbool.h>
#include <stddef.h>

/* A step is measured over this many completions per lane (at least). */
#define PAI__LANES_STEP 1
/* A step pays when its throughput beats the last by at least this share
 * of what the added lanes could add at best: half (2 lanes for 1 must
 * bring 1.5x; 5 for 4, 1.125x). */
#define PAI__LANES_GAIN 0.5
/* Steps held after a probe that did not pay, before the next: doubling
 * from the first to the last. */
#define PAI__LANES_HOLD_MIN 8
#define PAI__LANES_HOLD_MAX 64

enum pai__lanes_phase {
	PAI__LANES_START, /* doubling */
	PAI__LANES_HOLD,  /* at a level that paid, for hold_left steps */
	PAI__LANES_PROBE  /* one lane more than the level that paid */
};

typedef struct pai__lanes {
	unsigned max; /* never more (the batch's in_flight) */
	unsigned now; /* lanes that may work now: 1..max */
	enum pai__lanes_phase phase;
	/* the level that paid, and its throughput (per second; 0: not
	 * measured since the last change) */
	unsigned base;
	double base_rate;
	unsigned hold, hold_left; /* steps of the current hold */
	/* the step under way: since when (µs), completions, needed */
	long long step_at;
	unsigned step_done, step_need;
	/* submissions begun; overload told by one begun before `calm`
	 * belongs to the episode already answered */
	unsigned long long begun, calm;
	unsigned changes; /* how many times `now` changed (for tests) */
} pai__lanes;

/* Starts at one lane of at most max (at least 1), at now_us. */
void pai__lanes_init(pai__lanes *l, unsigned max, long long now_us);
/* A submission begins: its number, for pai__lanes_done(). */
unsigned long long pai__lanes_begin(pai__lanes *l);
/* Submission seq ended at now_us; overloaded: the server said so on
 * the way (a 429, a 503, a timeout, or a wait it named to another
 * lane meanwhile), even if a retry then went through. Returns true
 * when l->now changed. */
bool pai__lanes_done(pai__lanes *l, unsigned long long seq, bool overloaded,
		     long long now_us);

#endif /* PAI_LANES_H */
