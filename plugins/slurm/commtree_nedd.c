/*
 * The NeDD family inside slurmctld: the observations (plugins/lib/nedd.h)
 * from the controller's own job records at decision time, no other daemon
 * (every running job and every job that ended inside the window, with its
 * --comm-app, nodes, start and end; under stall=routed the load routed
 * through each router too), the job's application and seed, and
 * the record's NeDD fields. A job naming no application is silent unless
 * inj_unnamed= is set (a background log's jobs, tb_nedd_unnamed_injection).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "commtree_eval.h"
#include "../lib/nedd.h"
#include "../lib/profile.h"

struct collect {
	const struct commtree_model *md;
	const struct tb_options *opts;
	struct tb_nedd_run *runs;
	int n, cap;
	time_t now;
};

/* A job's seed: the configured one mixed with its id. */
static uint64_t _seed(const struct tb_options *opts, uint32_t job_id)
{
	return tb_nedd_mix((uint64_t)opts->nedd.seed ^
			   tb_nedd_mix((uint64_t)job_id));
}

extern const char *commtree_nedd_app(job_record_t *job_ptr, char *buf,
				     size_t len)
{
	const char *app = commtree_spank_value(job_ptr, "TESTBED_COMM_APP");
	struct tb_profile prof;

	if (app)
		return app;
	/* The comment's alternative, as for the pattern (profile.h). */
	if (!job_ptr->comment || !strchr(job_ptr->comment, ':') ||
	    tb_profile_parse(job_ptr->comment, &prof, NULL, 0) ||
	    !prof.app[0])
		return NULL;
	snprintf(buf, len, "%s", prof.app);
	return buf;
}

static int _collect(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	struct collect *c = arg;
	const char *app;
	struct tb_nedd_run *run;
	bool running = IS_JOB_RUNNING(job_ptr);
	int *nodes;
	char buf[TB_JOB_APP_LEN];
	double inj;

	if (!job_ptr->node_bitmap || !job_ptr->start_time ||
	    IS_JOB_PENDING(job_ptr))
		return 0;
	/* Ended (or completing) before the window: no traffic in it. */
	if (!running && (double) job_ptr->end_time <
			(double) c->now - c->opts->nedd.window)
		return 0;
	app = commtree_nedd_app(job_ptr, buf, sizeof(buf));
	/* No application: it injects nothing, unless inj_unnamed= gives
	 * such jobs (a replayed background log's) their profile's share. */
	inj = app ? -1 : tb_nedd_unnamed_injection(&c->opts->nedd,
						   job_ptr->comment);
	if (!app && inj <= 0)
		return 0;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		xrecalloc(c->runs, c->cap, sizeof(*c->runs));
	}
	nodes = xcalloc(bit_set_count(job_ptr->node_bitmap) + 1, sizeof(int));
	run = &c->runs[c->n++];
	memset(run, 0, sizeof(*run));
	for (int i = 0; (i = bit_ffs_from_bit(job_ptr->node_bitmap, i)) >= 0;
	     i++) {
		int k = i < c->md->topo_of_count ? c->md->topo_of[i] : -1;
		if (k >= 0)
			nodes[run->n++] = k;
	}
	run->nodes = nodes;
	run->inj = inj;
	snprintf(run->app, sizeof(run->app), "%s", app ? app : "");
	run->start = (double) job_ptr->start_time;
	run->end = running ? INFINITY : (double) job_ptr->end_time;
	run->seed = _seed(c->opts, job_ptr->job_id);
	return 0;
}

extern void commtree_nedd_observe(const struct commtree_model *md,
				  struct tb_occupancy *occ,
				  const struct tb_options *opts)
{
	const struct tb_topology *t = md->topo;
	struct collect c = { .md = md, .opts = opts, .now = time(NULL) };
	double *T;

	if (!t->n_routers || !job_list)
		return;
	list_for_each(job_list, _collect, &c);
	/* Freed by tb_occupancy_free(), hence malloc. */
	T = malloc(sizeof(double) * t->n_routers);
	if (T && !tb_nedd_traffic(t, c.runs, c.n, (double) c.now, &opts->nedd,
				  T)) {
		occ->router_traffic = T;
		occ->n_routers = t->n_routers;
	} else {
		error("topology/commtree: NeDD traffic: out of memory; every router counts as idle");
		free(T);
	}
	/* stall=routed: the load routed through each router, from the same
	 * records (plugins/lib/nedd.h); malloc as T. */
	if (opts->nedd.stall == TB_NEDD_STALL_ROUTED && occ->router_traffic) {
		double *L = malloc(sizeof(double) * t->n_routers);

		if (L && !tb_nedd_routed_load(t, c.runs, c.n, (double) c.now,
					      &opts->nedd, L)) {
			occ->router_routed = L;
		} else {
			error("topology/commtree: NeDD routed load: out of memory; every router's stall count is 0");
			free(L);
		}
	}
	for (int j = 0; j < c.n; j++)
		xfree(c.runs[j].nodes);
	xfree(c.runs);
}

extern void commtree_nedd_job(job_record_t *job_ptr,
			      const struct tb_options *opts,
			      struct tb_job *job)
{
	char buf[TB_JOB_APP_LEN];
	const char *app = commtree_nedd_app(job_ptr, buf, sizeof(buf));

	snprintf(job->app, sizeof(job->app), "%s", app ? app : "");
	job->seed = _seed(opts, job_ptr->job_id);
}

extern bool commtree_nedd_runtime(const struct commtree_model *md,
				  const struct tb_occupancy *occ,
				  const struct tb_job *job,
				  const struct tb_options *opts,
				  const int *alloc, int n, double t0,
				  double *scaled)
{
	double U = 0, G = 0;

	if (t0 <= 0 || !job->app[0] || tb_nedd_app_find(job->app) < 0 ||
	    !occ->router_traffic || n < 1)
		return false;
	if (tb_nedd_pressure(md->topo, occ->router_traffic, alloc, n, &U, &G))
		return false;
	*scaled = tb_nedd_runtime(t0, job->app, U, G, opts->nedd.jitter,
				  job->seed);
	return true;
}

extern void commtree_nedd_record(char **text, enum tb_policy policy,
				 const struct commtree_model *md,
				 const struct tb_occupancy *occ,
				 const struct tb_job *job,
				 const struct tb_options *opts,
				 const int *alloc, int n)
{
	const struct tb_topology *t = md->topo;
	struct tb_nedd_choice c;
	double U = 0, G = 0;
	char *routers = NULL;

	tb_nedd_decide(job, opts, &c);
	xstrfmtcat(*text, ";strategy=%s;class=%s;app=%s;seed=%llu",
		   tb_policy_name(policy == TB_POLICY_NEDD ? c.strategy :
				  policy),
		   tb_nedd_class_name(c.cls), job->app[0] ? job->app : "none",
		   (unsigned long long) job->seed);
	if (!occ->router_traffic || n < 1)
		return;
	/* Each router of the job once, in the order its nodes come. */
	for (int k = 0; k < n; k++) {
		int r = t->router_of[alloc[k]], seen = 0;

		for (int q = 0; q < k && !seen; q++)
			seen = t->router_of[alloc[q]] == r;
		if (!seen)
			xstrfmtcat(routers, "%s%s:%.6g", routers ? "," : "",
				   t->routers[r].name, occ->router_traffic[r]);
	}
	xstrfmtcat(*text, ";traffic=%s", routers);
	xfree(routers);
	if (!tb_nedd_pressure(t, occ->router_traffic, alloc, n, &U, &G))
		xstrfmtcat(*text, ";pressure_u=%.6g;pressure_g=%.6g;runtime_factor=%.6g",
			   U, G, tb_nedd_runtime_factor(job->app, U, G));
}
