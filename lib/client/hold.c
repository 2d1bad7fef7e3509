/* hold.c - the client's pace: the waits a server names (a 429's or
 * 503's Retry-After), held for every request of the client and of the
 * lanes of its batches, and said once each; interruptible sleeps; and
 * the backoff of streams opened again, as client-go's reflector backs
 * off (http.h). */
#include "http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void pai__lock(pai_client *c)
{
	pthread_mutex_lock(&c->sh->lock);
}

void pai__unlock(pai_client *c)
{
	pthread_mutex_unlock(&c->sh->lock);
}

void pai__trace(pai_client *c, const char *line)
{
	if (!c->trace)
		return;
	pthread_mutex_lock(&c->sh->out);
	c->trace(c->trace_data, line);
	pthread_mutex_unlock(&c->sh->out);
}

void pai__trace_to(void *client, const char *line)
{
	pai__trace(client, line);
}

/* xorshift64*: jitter needs no cryptographic randomness */
uint64_t pai__jitter(pai_client *c)
{
	uint64_t x = c->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	c->rng = x;
	return x * 0x2545F4914F6CDD1DULL;
}

int pai__sleep(pai_client *c, long long ms)
{
	while (ms > 0) {
		long step = ms > 50 ? 50 : (long)ms;
		struct timespec ts = {0, step * 1000000L};

		if (c->interrupt && *c->interrupt)
			return PAI_EINTR;
		nanosleep(&ts, NULL);
		ms -= step;
	}
	return c->interrupt && *c->interrupt ? PAI_EINTR : PAI_OK;
}

/* ---- Retry-After ----------------------------------------------------- */

/* The wait the server named in its answer (Retry-After of a 429 or a
 * 503), in ms from now; 0 for none. An HTTP date counts from the
 * answer's own Date, so that this machine's clock does not matter. */
static long long named_wait(const pai__response *rs, int err)
{
	long long base, ms;

	if (err != PAI_OK || (rs->status != 429 && rs->status != 503))
		return 0;
	if (rs->retry_after_ms > 0)
		return rs->retry_after_ms;
	if (!rs->retry_at_s)
		return 0;
	base = rs->date_s ? rs->date_s : (long long)time(NULL);
	ms = (rs->retry_at_s - base) * 1000;
	return ms > 0 ? ms : 0;
}

/* "90 s", "60 min", "2 h": a wait as people say it. */
static void say_wait(char *out, size_t len, long long ms)
{
	long long s = (ms + 999) / 1000;

	if (s < 120)
		snprintf(out, len, "%lld s", s);
	else if (s < 7200)
		snprintf(out, len, "%lld min", (s + 59) / 60);
	else
		snprintf(out, len, "%lld h", (s + 3599) / 3600);
}

/* A named wait longer than the client waits: the call fails at once,
 * saying what the server asked and what the client's limit is. */
static int wait_too_long(pai_client *c, const pai__request *rq,
			 const pai__response *rs, long long named)
{
	char *host = pai__url_host(rq->url);
	char asked[32], cap[32];
	int err;

	say_wait(asked, sizeof(asked), named);
	say_wait(cap, sizeof(cap), c->retry_max_ms);
	err = pai__client_fail(
	    c, PAI_EHTTP, rs->status, NULL,
	    "HTTP %ld %s from %s: the cluster %s wait %s before the next "
	    "request, longer than the client waits (%s)",
	    rs->status,
	    rs->status == 429 ? "Too Many Requests" : "Service Unavailable",
	    host ? host : rq->url,
	    rs->status == 429 ? "has a rate limit and asks to"
			      : "is unavailable and asks to",
	    asked, cap);
	free(host);
	return err;
}

long long pai__held_ms(pai_client *c)
{
	long long left;

	pai__lock(c);
	left = c->sh->not_before_ms - pai__now_ms();
	pai__unlock(c);
	return left > 0 ? left : 0;
}

int pai__hold(pai_client *c)
{
	long long wait;
	long by;
	char note[160];

	pai__lock(c);
	wait = c->sh->not_before_ms - pai__now_ms();
	by = c->sh->held_by;
	pai__unlock(c);
	if (wait <= 0)
		return PAI_OK;
	pthread_mutex_lock(&c->sh->out);
	if (c->sh->on_retry_after)
		c->sh->on_retry_after(c->sh->on_retry_after_data, by, wait);
	pthread_mutex_unlock(&c->sh->out);
	snprintf(note, sizeof(note),
		 "* waiting %lld ms, as the server asked (HTTP %ld)", wait, by);
	pai__trace(c, note);
	if (pai__sleep(c, wait) != PAI_OK)
		return pai__client_fail(c, PAI_EINTR, 0, NULL, "interrupted");
	return PAI_OK;
}

int pai__note_answer(pai_client *c, const pai__request *rq,
		     const pai__response *rs, int err, long long *named)
{
	long long until;

	if (err == PAI_OK && rs->date_s) {
		c->server_date_s = rs->date_s;
		c->server_date_at_ms = pai__now_ms();
	}
	*named = named_wait(rs, err);
	if (*named <= 0)
		return PAI_OK;
	if (*named > c->retry_max_ms)
		return wait_too_long(c, rq, rs, *named);
	until = pai__now_ms() + *named;
	pai__lock(c);
	/* the longest wait any lane was told */
	if (until > c->sh->not_before_ms) {
		c->sh->not_before_ms = until;
		c->sh->held_by = rs->status;
	}
	pai__unlock(c);
	return PAI_OK;
}

/* ---- the backoff of streams ------------------------------------------ */

void pai__backoff_opened(pai__backoff *b)
{
	b->opened_at = pai__now_ms();
}

void pai__backoff_ended(pai_client *c, pai__backoff *b, int news)
{
	long long now = pai__now_ms(), wait = 0, base;

	if (news || now - b->opened_at >= PAI__BACKOFF_LIVED_MS)
		b->delay = 0; /* it lived: the next one is not a retry */
	else {
		b->delay = b->delay ? b->delay * 2 : PAI__BACKOFF_BASE_MS;
		if (b->delay > PAI__BACKOFF_CAP_MS)
			b->delay = PAI__BACKOFF_CAP_MS;
		/* jitter as client-go's (factor 1): up to as much again,
		 * from a base held at half the cap, so that clients at the
		 * cap still part (a wait clamped to the cap made every one
		 * of them wait exactly the cap, together) */
		base = b->delay < PAI__BACKOFF_CAP_MS / 2
			   ? b->delay
			   : PAI__BACKOFF_CAP_MS / 2;
		wait =
		    base + (long long)(pai__jitter(c) % (uint64_t)(base + 1));
	}
	b->next_at = now + wait;
	if (b->next_at < b->opened_at + PAI__BACKOFF_MIN_MS)
		b->next_at = b->opened_at + PAI__BACKOFF_MIN_MS;
}

long long pai__backoff_left(const pai__backoff *b)
{
	long long left = b->next_at - pai__now_ms();

	return left > 0 ? left : 0;
}
