/* file.h - files replaced whole (pai_file_write_atomic(), in pai.h) and
 * the directories made for them. Below config.c; needs nothing of the
 * rest of lib/client. Not installed, not for cli/. */
#ifndef PAI_FILE_H
#define PAI_FILE_H

#include "sys/sys.h"

#include <sys/types.h>

/* mkdir -p, with mode for what it creates: 0 or an errno value. */
int pai__make_dirs(const char *dir, mode_t mode);

#endif /* PAI_FILE_H */
