/* The job's batch environment (commtree_env.h). */
#include <string.h>

#include "src/common/slurm_xlator.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "commtree_env.h"

/* Replaces or adds NAME=value in the job's supplemental environment. */
extern void commtree_env_set(job_record_t *job_ptr, const char *name,
			     const char *value)
{
	job_details_t *d = job_ptr->details;
	size_t n = strlen(name);

	for (int i = 0; i < d->env_cnt; i++) {
		if (!strncmp(d->env_sup[i], name, n) && d->env_sup[i][n] == '=') {
			xfree(d->env_sup[i]);
			d->env_sup[i] = xstrdup_printf("%s=%s", name, value);
			return;
		}
	}
	xrecalloc(d->env_sup, d->env_cnt + 1, sizeof(char *));
	d->env_sup[d->env_cnt++] = xstrdup_printf("%s=%s", name, value);
}
