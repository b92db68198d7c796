/* Shared by topology.c (the model and its builder) and topology_json.c
 * (the JSON loader); not for the library's users. */
#ifndef TB_TOPOLOGY_INTERNAL_H
#define TB_TOPOLOGY_INTERNAL_H

#include <stddef.h>

#include "topology.h"

/* Writes msg, its one %s given arg ("" for NULL), into err; returns -1. */
int tb_err_set(char *err, size_t errlen, const char *msg, const char *arg);

#endif
