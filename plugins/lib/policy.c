#include "policy.h"

#include <stdio.h>

#include "pick.h"

enum tb_status tb_allocate(enum tb_policy p, const struct tb_topology *t,
			   const struct tb_occupancy *o,
			   const struct tb_job *job, int *alloc)
{
	return tb_allocate_with(p, t, o, job, NULL, alloc);
}

/* ranks=authors (options.h): the authors' code costs default and greedy
 * in node index order (gaganmangat/slurm_changes, branch master, commit
 * a60e570, src/slurmctld/calc_hops.c hop(): the job's node_bitmap from
 * bit_ffs to bit_fls), balanced and adaptive in the order the nodes were
 * picked (branch algo2, commit 828e71c, calc_hops.c hop(): switch_idx and
 * alloc_node_table as select_linear.c's _job_test_topo inserted them, for
 * both of adaptive's candidates, expected_hops()). Every other policy in
 * index order, Slurm's own task layout. */
enum tb_rank_order tb_authors_ranks(enum tb_policy p)
{
	return p == TB_POLICY_BALANCED || p == TB_POLICY_ADAPTIVE ?
		TB_RANKS_TAKEN : TB_RANKS_INDEX;
}

enum tb_policy tb_denominator_policy(const struct tb_options *opts)
{
	if (opts && opts->denominator == TB_DENOM_DEFAULT)
		return TB_POLICY_DEFAULT;
	return TB_POLICY_DEFAULT1905;
}

/* A request any policy could be asked: 0, else why not. */
static enum tb_status check_request(const struct tb_topology *t,
				    const struct tb_occupancy *o,
				    const struct tb_job *job)
{
	if (job->nodes < 1 || o->n_nodes != t->n_nodes)
		return TB_EINVAL;
	if (job->nodes > t->n_nodes)
		return TB_ETOOBIG;
	return TB_OK;
}

enum tb_status tb_allocate_with(enum tb_policy p, const struct tb_topology *t,
				const struct tb_occupancy *o,
				const struct tb_job *job,
				const struct tb_options *opts, int *alloc)
{
	const struct tb_policy_info *pi = tb_policy_info(p);
	struct tb_options paper = tb_options_default();
	enum tb_status rc;

	if (!opts)
		opts = &paper;
	rc = check_request(t, o, job);
	if (rc != TB_OK)
		return rc;
	if (!pi)
		return TB_EINVAL;
	rc = pi->fn(t, o, job, opts, alloc);
	if (rc == TB_OK)
		tb_rank_order(opts, tb_authors_ranks(p), alloc, job->nodes);
	return rc;
}

enum tb_status tb_allocate_why(enum tb_policy p, const struct tb_topology *t,
			       const struct tb_occupancy *o,
			       const struct tb_job *job,
			       const struct tb_options *opts, int *alloc,
			       char *why, size_t whylen)
{
	const struct tb_policy_info *pi = tb_policy_info(p);
	struct tb_options paper = tb_options_default();
	enum tb_status rc;

	if (why && whylen)
		why[0] = '\0';
	/* A policy that says why a job waits, on a request it can be asked;
	 * its pick keeps the order it took the nodes in. */
	if (pi && pi->why && check_request(t, o, job) == TB_OK)
		rc = pi->why(t, o, job, opts ? opts : &paper, alloc, why,
			     whylen);
	else
		rc = tb_allocate_with(p, t, o, job, opts, alloc);
	if (rc != TB_OK && why && whylen && !why[0])
		snprintf(why, whylen, "%s", tb_status_str(rc));
	return rc;
}
