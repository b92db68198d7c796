/*
 * A placed job's record, written where sacct and the batch script find it
 * (AdminComment and the batch environment): the policy, the cost every
 * policy would have had on the same snapshot, the cost of the nodes Slurm
 * gave, the runtime its model scales (Eq. 7, TreeMatch's, TOFA's or
 * NeDD's) and the rank order. commtree_eval.c calls it after tree's eval.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "commtree_env.h"
#include "commtree_eval.h"
#include "../lib/cost.h"
#include "../lib/matrix.h"
#include "../lib/runtime_law.h"
#include "../lib/options.h"
#include "../lib/policy.h"
#include "../lib/profile.h"
#include "../lib/tofa.h"
#include "../lib/treematch.h"

/*
 * The cost of the nodes Slurm actually gave (node_map after tree's eval),
 * ranks in node index order, as Slurm lays out a job's tasks by default
 * (block distribution): under `default` the library's model of tree and
 * Slurm can differ, a job may get more nodes than the policy was asked for
 * (-N min-max), and a policy's own cost ranks nodes in the order it took
 * the leaves, which can differ from node order (balanced).
 */
static double _actual_cost(const struct commtree_model *md,
			   const struct tb_occupancy *occ,
			   const struct tb_job *job, bitstr_t *node_map,
			   const struct tb_options *opts)
{
	const struct tb_topology *topo = md->topo;
	int n = 0, *alloc = xcalloc(topo->n_nodes, sizeof(int));
	struct tb_job actual = *job;
	double cost = NAN;

	for (int i = 0; (i = bit_ffs_from_bit(node_map, i)) >= 0; i++) {
		int k = i < md->topo_of_count ? md->topo_of[i] : -1;
		if (k < 0) {
			n = 0;	/* a node outside the model: no cost */
			break;
		}
		alloc[n++] = k;
	}
	if (n > 0) {
		actual.nodes = n;
		if (tb_allocation_cost_with(topo, occ, &actual, opts, alloc,
					    &cost))
			cost = NAN;
	}
	xfree(alloc);
	return cost;
}

/*
 * The rank order, for an MPI job (srun --distribution=arbitrary with a
 * hostfile built from it): the policy's order when Slurm gave exactly its
 * nodes (true), else Slurm's node order (false).
 */
static bool _rank_order_ok(const struct commtree_model *md,
			   bool have_chosen, const int *chosen,
			   const struct tb_job *job, bitstr_t *node_map)
{
	if (!have_chosen || bit_set_count(node_map) != job->nodes)
		return false;
	for (int k = 0; k < job->nodes; k++) {
		int i = md->slurm_of[chosen[k]];
		if (i < 0 || !bit_test(node_map, i))
			return false;
	}
	return true;
}

extern void commtree_record_runtime(char **text,
				    const struct tb_profile *prof,
				    double scaled,
				    enum tb_runtime_fallback why)
{
	if (prof->runtime <= 0)
		return;
	xstrfmtcat(*text, ";runtime_base=%.6g;runtime_scaled=%.6g",
		   prof->runtime, scaled);
	/* The model had a cost missing: the job runs its log runtime, and
	 * the record says so rather than passing it off as "no change". */
	if (why != TB_RUNTIME_MODELLED)
		xstrfmtcat(*text, ";runtime_fallback=%s",
			   tb_runtime_fallback_name(why));
}

extern void commtree_record(const struct commtree_model *md,
			    job_record_t *job_ptr, enum tb_policy policy,
			    const struct tb_occupancy *occ,
			    const struct tb_job *job,
			    const struct tb_profile *prof,
			    const struct tb_matrix *matrix,
			    const char *fallback, bitstr_t *node_map,
			    const struct tb_options *opts)
{
	const struct tb_topology *topo = md->topo;
	double cost[TB_POLICY_COUNT], hop_bytes[TB_POLICY_COUNT];
	enum tb_policy denominator = tb_denominator_policy(opts);
	int *alloc = xcalloc(job->nodes, sizeof(int));
	int *chosen = xcalloc(job->nodes, sizeof(int));
	bool have_chosen = false;
	char *text = NULL, *order = NULL, val[64];
	const int *chosen_ok = NULL;
	double scaled, actual = _actual_cost(md, occ, job, node_map, opts);
	double tofa_hops = NAN, tofa_c0 = NAN;
	char *torus_text = NULL;
	const char *runtime_model = NULL;
	enum tb_runtime_fallback why;
	int *given = xcalloc(topo->n_nodes, sizeof(int)), n_given = 0;
	bool nedd_model;

	for (int p = 0; p < TB_POLICY_COUNT; p++) {
		cost[p] = hop_bytes[p] = NAN;
		/* On a torus Slurm's tree is one leaf of every node, on which
		 * TreeMatch's group search grows combinatorially (a 64-rank
		 * job held slurmctld for minutes): those policies, whose tree
		 * means nothing there, are not costed (nan) unless chosen. */
		if (topo->torus_node && p != (int) policy &&
		    tb_policy_info((enum tb_policy) p)->family ==
		    TB_FAMILY_TREEMATCH)
			continue;
		if (tb_allocate_with((enum tb_policy) p, topo, occ, job, opts,
				     alloc) != TB_OK)
			continue;
		if (p == (int) policy) {
			memcpy(chosen, alloc, job->nodes * sizeof(int));
			have_chosen = true;
		}
		(void) tb_allocation_cost_with(topo, occ, job, opts, alloc,
					       &cost[p]);
		if (matrix)
			hop_bytes[p] = tb_hop_bytes(topo, matrix, alloc,
						    job->nodes);
	}
	xfree(alloc);
	/* The rank order, as below (computed first: on a torus the runtime
	 * model reads the map the ranks run in). */
	chosen_ok = _rank_order_ok(md, have_chosen, chosen, job, node_map) ?
		    chosen : NULL;
	if (topo->torus_node)
		commtree_tofa_record(md, job_ptr, &torus_text, policy, opts,
				     occ, job, matrix, node_map, chosen_ok,
				     &tofa_hops, &tofa_c0);
	/* Eq. 7 divides by the study's baseline (default1905); cost_default
	 * below stays the cost of policy default, Slurm 24.11's tree. The
	 * TreeMatch policies use their paper's model instead, T' = (1 + R a -
	 * a) T with R the hop-bytes ratio to the default's (IJHPCA 2018,
	 * Sec. 3.2), whose default is Slurm's topology best fit. On a torus
	 * every policy's matrix job follows TOFA's (ours, tofa_runtime.c):
	 * T = T0 ((1 - f) + f C / C0), C its plain hop-bytes as it runs, C0
	 * default's on the empty torus, f its communication share. */
	if (topo->torus_node && matrix && job->comm) {
		scaled = tb_tofa_runtime_why(prof->runtime,
					     prof->comm_fraction, tofa_hops,
					     tofa_c0, &why);
		runtime_model = "tofa";
	} else {
		struct tb_runtime_costs rc = {
			cost[policy], cost[denominator], hop_bytes[policy],
			hop_bytes[TB_POLICY_DEFAULT]
		};

		scaled = tb_tree_runtime_why(policy, job, matrix != NULL,
					     prof->runtime,
					     prof->comm_fraction, &rc, &why);
	}
	/* The nodes Slurm gave, for NeDD's runtime model and record. */
	for (int i = 0; (i = bit_ffs_from_bit(node_map, i)) >= 0; i++)
		if (i < md->topo_of_count && md->topo_of[i] >= 0)
			given[n_given++] = md->topo_of[i];
	/*
	 * A job naming an application of NeDD's profile table runs NeDD's
	 * runtime model (nedd.h), whatever the policy: its slow-down comes
	 * from the traffic on the routers and groups it got, which the other
	 * models do not see. Under no congestor it is T0 within the jitter.
	 */
	nedd_model = commtree_nedd_runtime(md, occ, job, opts, given, n_given,
					   prof->runtime, &scaled);
	if (nedd_model) {
		why = TB_RUNTIME_MODELLED;
		runtime_model = "nedd";
	}
	/* The rank order (_rank_order_ok). */
	if (chosen_ok) {
		for (int k = 0; k < job->nodes; k++)
			xstrfmtcat(order, "%s%s", k ? "," : "",
				   topo->nodes[chosen[k]].name);
	} else {
		for (int i = 0; (i = bit_ffs_from_bit(node_map, i)) >= 0; i++)
			xstrfmtcat(order, "%s%s", order ? "," : "",
				   node_record_table_ptr[i]->name);
	}
	xstrfmtcat(text, "policy=%s;comm=%d;pattern=%s;comm_percent=%g",
		   tb_policy_name(policy), job->comm,
		   tb_pattern_name(job->pattern), prof->comm_fraction * 100);
	xstrfmtcat(text, ";cost=%.6g;cost_default=%.6g", cost[policy],
		   cost[TB_POLICY_DEFAULT]);
	for (int p = TB_POLICY_DEFAULT + 1; p < TB_POLICY_COUNT; p++)
		xstrfmtcat(text, ";cost_%s=%.6g",
			   tb_policy_name((enum tb_policy) p), cost[p]);
	xstrfmtcat(text, ";cost_actual=%.6g", actual);
	xstrfmtcat(text, ";denominator=%s", tb_policy_name(denominator));
	commtree_record_runtime(&text, prof, scaled, why);
	if (matrix) {
		xstrfmtcat(text, ";matrix_ranks=%d;hop_bytes=%.6g;hop_bytes_default=%.6g",
			   matrix->ranks, hop_bytes[policy],
			   hop_bytes[TB_POLICY_DEFAULT]);
		for (int p = TB_POLICY_DEFAULT + 1; p < TB_POLICY_COUNT; p++)
			xstrfmtcat(text, ";hop_bytes_%s=%.6g",
				   tb_policy_name((enum tb_policy) p),
				   hop_bytes[p]);
	}
	if (runtime_model)
		xstrfmtcat(text, ";runtime_model=%s", runtime_model);
	if (torus_text)
		xstrcat(text, torus_text);
	xfree(torus_text);
	if (fallback)
		xstrfmtcat(text, ";fallback=%s", fallback);
	if (tb_policy_info(policy)->family == TB_FAMILY_NEDD)
		commtree_nedd_record(&text, policy, md, occ, job, opts, given,
				     n_given);
	xfree(given);
	xfree(job_ptr->admin_comment);
	job_ptr->admin_comment = text;

	commtree_env_set(job_ptr, "TESTBED_POLICY", tb_policy_name(policy));
	snprintf(val, sizeof(val), "%.6g", cost[policy]);
	commtree_env_set(job_ptr, "TESTBED_COST", val);
	snprintf(val, sizeof(val), "%.6g", cost[TB_POLICY_DEFAULT]);
	commtree_env_set(job_ptr, "TESTBED_COST_DEFAULT", val);
	if (prof->runtime > 0) {
		snprintf(val, sizeof(val), "%.3f", scaled);
		commtree_env_set(job_ptr, "TESTBED_RUNTIME_SCALED", val);
	}
	if (order)
		commtree_env_set(job_ptr, "TESTBED_RANK_NODES", order);
	xfree(order);
	xfree(chosen);
}
