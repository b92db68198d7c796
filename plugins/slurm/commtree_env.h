/* The job's batch environment, where the decision's record goes. */
#ifndef COMMTREE_ENV_H
#define COMMTREE_ENV_H

#include "src/slurmctld/slurmctld.h"

/* Replaces or adds NAME=value in the job's batch environment. */
extern void commtree_env_set(job_record_t *job_ptr, const char *name,
			     const char *value);

#endif
