/* internal.h - TRANSITIONAL: the files of lib/client and lib/ssh still
 * include this one header for all of libpai's private declarations. Each
 * folder now has its own (sys/sys.h, text/text.h, job/job.h,
 * runtime/runtime.h, convert/convert.h), each including only those of
 * the folders below it; this file only gathers the ones lib/client and
 * lib/ssh use, and goes once they include those directly. Not installed,
 * not for cli/. */
#ifndef PAI_INTERNAL_H
#define PAI_INTERNAL_H

#include "sys/sys.h"
#include "text/text.h"
#include "job/job.h"

#endif /* PAI_INTERNAL_H */
