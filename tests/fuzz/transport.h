/* transport.h - the fuzz targets' network: each request gets the next
 * answer cut from the fuzzer's input, read as a client reads one off
 * the wire (libpai's seam: pai_client.transport, lib/client/http.h).
 *
 * The answers are separated by a 0x1e byte (ASCII record separator);
 * each is
 *
 *     STATUS\n
 *     Header-Name: value\n        (any number; "Location: /x" too)
 *     \n
 *     body
 *
 * A missing blank line means no body; once the answers run out every
 * request fails as a connection would (PAI_EUNREACHABLE). */
#ifndef FUZZ_TRANSPORT_H
#define FUZZ_TRANSPORT_H

#include "check.h"
#include "client/http.h"

#include <stddef.h>

#define FUZZ_BASE "http://pai.test:9186"

typedef struct fuzz_wire {
	const char *p, *end;
	unsigned unanswered; /* requests made once the answers ran out */
} fuzz_wire;

/* The most requests one call of libpai makes after the answers ran
 * out: the one that went unanswered and, when it was a submission, one
 * read of whether the job was made all the same. More is a request
 * that loops on its own. */
#define FUZZ_MAX_UNANSWERED 2

/* A client for FUZZ_BASE (token "t", no retries) whose requests wire
 * answers; NULL when out of memory. */
pai_client *fuzz_client(fuzz_wire *wire, const char *data, size_t len);

/* A Kubernetes client (pai_client_new_k8s()) of the kubeconfig file
 * kubeconfig, whose server is FUZZ_BASE, for jobs of kind, its requests
 * answered by wire; NULL when out of memory. */
pai_client *fuzz_k8s_client(fuzz_wire *wire, const char *data, size_t len,
			    const char *kubeconfig, pai_k8s_kind kind);

/* A Slurm client (pai_client_new_slurm()) of slurmrestd at FUZZ_BASE
 * as alice, its job directories under workdir, its requests answered by
 * wire; NULL when out of memory. */
pai_client *fuzz_slurm_client(fuzz_wire *wire, const char *data, size_t len,
			      const char *workdir);

/* Aborts unless err, what one call of libpai returned, is one of
 * pai.h's codes and, on an error, the client's detail is one printable
 * line; and unless the call made at most FUZZ_MAX_UNANSWERED requests
 * once the answers ran out. */
void fuzz_check_result(pai_client *c, int err);

/* What the API modules' targets share: pai_job_get() of alice's job1,
 * its status walked by every accessor and each task's log URL asked
 * ("stdout", odd_stream for every other task); pai_jobs_list() of
 * alice's (all: everyone's); pai_submit_ex() of the v1 config v1. */
void fuzz_get_job(pai_client *c, const char *odd_stream);
void fuzz_list_jobs(pai_client *c, int all);
void fuzz_submit(pai_client *c, const char *v1);

#endif
