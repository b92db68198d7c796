/*
 * Core-level TreeMatch for topology/commtree (IJHPCA 2018, Sec. 4: the
 * emulation allocated cores, CR_Core, so partly busy nodes count).
 *
 * A job takes this path when the policy is a TreeMatch strategy (or
 * default, which then records the strategies' hop-bytes beside its own), its
 * partition lets jobs share nodes (the generated hidden partition `cores`,
 * OverSubscribe=NO), it is not --exclusive, it runs one CPU per task and
 * its matrix has one rank per task (sbatch -p cores -n <ranks>). Then
 *
 *   1. tree's eval runs first on the state Slurm offered: its nodes and
 *      CPUs per node are the paper's default (topology-aware best fit,
 *      ranks in blocks), the denominator R of Sec. 3.2 needs, and tm-a's
 *      cores (TreeMatch maps the ranks onto the cores Slurm chose);
 *   2. for tm-i, tm-sub and tm-sub3 the state is restored and TreeMatch
 *      chooses among the free cores of every offered node
 *      (tb_treematch_allocate); node_map is narrowed to its nodes and each
 *      node's avail_cpus to the ranks it got, and tree's eval runs again
 *      on exactly that, so cores and memory are accounted by Slurm's code
 *      (cons_tres then gives the job those CPUs: job_res->cpus comes from
 *      avail_cpus);
 *   3. the record gives every TreeMatch strategy's hop-bytes at core level
 *      (cores as the tree's leaves, tb_hop_bytes_cores), the runtime of
 *      Sec. 3.2's model, and the rank-to-node map, one entry per rank.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/slurm_xlator.h"
#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "commtree_env.h"
#include "commtree_eval.h"
#include "../lib/treematch.h"

/* The policies that place by the matrix (the registry's matrix trait). */
static bool _is_tm(enum tb_policy p)
{
	return tb_policy_has(p, TB_TRAIT_MATRIX);
}

extern bool commtree_core_level(topology_eval_t *te, enum tb_policy policy,
				const struct tb_matrix *m)
{
	job_record_t *job_ptr = te->job_ptr;
	job_details_t *d = job_ptr->details;

	return tb_policy_has(policy, TB_TRAIT_CORES) && m &&
	       te->avail_res_array && job_ptr->part_ptr &&
	       job_ptr->part_ptr->max_share != 0 &&
	       !(d->whole_node & WHOLE_NODE_REQUIRED) &&
	       !job_ptr->gres_list_req && d->num_tasks &&
	       d->num_tasks != NO_VAL && (int) d->num_tasks == m->ranks &&
	       (d->cpus_per_task == NO_VAL16 || d->cpus_per_task <= 1) &&
	       !d->ntasks_per_node && !d->overcommit &&
	       /* No node count (-N): tree would add nodes past the ranks,
		* and TreeMatch chooses how many nodes the ranks take. */
	       te->min_nodes <= 1 && te->req_nodes <= 1;
}

/* Free cores per model node: what Slurm lets this job use there. A node
 * with any core in use is busy for the node-level policies. */
static void _fill_cores(const struct commtree_model *md, topology_eval_t *te,
			struct tb_occupancy *occ)
{
	for (int k = 0; k < md->topo->n_nodes; k++) {
		int i = md->slurm_of[k], c = 0;

		if (i >= 0 && bit_test(te->node_map, i) &&
		    te->avail_res_array && te->avail_res_array[i])
			c = te->avail_res_array[i]->avail_cpus;
		occ->free_cores[k] = c;
		if (occ->state[k] == TB_NODE_FREE &&
		    c < md->topo->nodes[k].cores)
			occ->state[k] = TB_NODE_BUSY;
	}
}

/* Tree's choice as model nodes, one entry per rank in blocks (node order,
 * each node up to the CPUs Slurm gives the job there). false when a node is
 * outside the model or the CPUs are fewer than the ranks. */
static bool _tree_slots(const struct commtree_model *md, topology_eval_t *te,
			int ranks, int *node_of_slot)
{
	int n = 0;

	for (int i = 0;
	     n < ranks && (i = bit_ffs_from_bit(te->node_map, i)) >= 0; i++) {
		int k = i < md->topo_of_count ? md->topo_of[i] : -1;
		int c = te->avail_res_array && te->avail_res_array[i] ?
			te->avail_res_array[i]->avail_cpus : 0;

		if (k < 0)
			return false;
		for (; c > 0 && n < ranks; c--)
			node_of_slot[n++] = k;
	}
	return n == ranks;
}

static void _strategy(enum tb_policy p, struct tb_tm_opts *o)
{
	tb_tm_opts_default(o);
	o->strategy = p == TB_POLICY_TM_I ? TB_TM_I : TB_TM_SUB;
	o->levels_above = p == TB_POLICY_TM_SUB3 ? 3 : 0;
}

/*
 * One strategy's cores and map. tm-a maps onto tree's slots; the others
 * choose. node_of_rank[r] receives rank r's node. Returns the hop-bytes,
 * NAN when the strategy cannot place the job.
 */
static double _place(const struct commtree_model *md,
		     const struct tb_occupancy *occ, const struct tb_matrix *m,
		     enum tb_policy p, const int *tree_slots, int *node_of_rank)
{
	int r = m->ranks, *cores = xcalloc(r, sizeof(int));
	int *map = xcalloc(r, sizeof(int));
	struct tb_tm_opts o;
	enum tb_status st;
	double hb = NAN;

	_strategy(p, &o);
	if (p == TB_POLICY_TM_A) {
		memcpy(cores, tree_slots, r * sizeof(int));
		st = tb_treematch_map(md->topo, m, cores, &o, map, &hb);
	} else {
		st = tb_treematch_allocate(md->topo, occ, m, &o, cores, map,
					   &hb);
	}
	if (st == TB_OK) {
		for (int k = 0; k < r; k++)
			node_of_rank[k] = cores[map[k]];
	} else {
		hb = NAN;
	}
	xfree(cores);
	xfree(map);
	return hb;
}

/* Narrows the offer to the ranks each node got. */
static void _narrow(const struct commtree_model *md, topology_eval_t *te,
		    const int *node_of_rank, int ranks)
{
	int *count = xcalloc(md->topo->n_nodes, sizeof(int));

	for (int k = 0; k < ranks; k++)
		count[node_of_rank[k]]++;
	bit_clear_all(te->node_map);
	for (int k = 0; k < md->topo->n_nodes; k++) {
		int i = md->slurm_of[k];

		if (!count[k] || i < 0)
			continue;
		bit_set(te->node_map, i);
		te->avail_res_array[i]->avail_cpus = count[k];
	}
	xfree(count);
}

static void _record(const struct commtree_model *md, job_record_t *job_ptr,
		    enum tb_policy policy, const struct tb_matrix *m,
		    const struct tb_profile *prof, const double *hb,
		    const int *node_of_rank, const char *fallback)
{
	char *text = NULL, *order = NULL, val[64];
	enum tb_runtime_fallback why = TB_RUNTIME_MODELLED;
	/* As at node level: a compute-intensive job keeps its runtime. */
	double scaled = prof->comm ?
			tb_treematch_runtime_why(prof->runtime,
						 prof->comm_fraction,
						 hb[policy],
						 hb[TB_POLICY_DEFAULT], &why) :
			prof->runtime;

	xstrfmtcat(text, "policy=%s;granularity=core;comm=%d;pattern=%s;comm_percent=%g",
		   tb_policy_name(policy), prof->comm,
		   tb_pattern_name(prof->pattern), prof->comm_fraction * 100);
	commtree_record_runtime(&text, prof, scaled, why);
	xstrfmtcat(text, ";matrix_ranks=%d;hop_bytes=%.6g;hop_bytes_default=%.6g",
		   m->ranks, hb[policy], hb[TB_POLICY_DEFAULT]);
	for (int p = TB_POLICY_DEFAULT + 1; p < TB_POLICY_COUNT; p++)
		if (_is_tm((enum tb_policy) p))
			xstrfmtcat(text, ";hop_bytes_%s=%.6g",
				   tb_policy_name((enum tb_policy) p), hb[p]);
	if (fallback)
		xstrfmtcat(text, ";fallback=%s", fallback);
	xfree(job_ptr->admin_comment);
	job_ptr->admin_comment = text;

	for (int k = 0; k < m->ranks; k++)
		xstrfmtcat(order, "%s%s", k ? "," : "",
			   md->topo->nodes[node_of_rank[k]].name);
	commtree_env_set(job_ptr, "TESTBED_POLICY", tb_policy_name(policy));
	commtree_env_set(job_ptr, "TESTBED_GRANULARITY", "core");
	if (prof->runtime > 0) {
		snprintf(val, sizeof(val), "%.3f", scaled);
		commtree_env_set(job_ptr, "TESTBED_RUNTIME_SCALED", val);
	}
	commtree_env_set(job_ptr, "TESTBED_RANK_NODES", order);
	xfree(order);
}

extern int commtree_eval_cores(const struct commtree_model *md,
			       topology_eval_t *te,
			       commtree_tree_eval_t tree_eval,
			       enum tb_policy policy,
			       struct tb_occupancy *occ,
			       const struct tb_matrix *m,
			       const struct tb_profile *prof, bool record)
{
	job_record_t *job_ptr = te->job_ptr;
	int r = m->ranks, rc;
	int *tree_slots = xcalloc(r, sizeof(int));
	int *node_of_rank = xcalloc(r, sizeof(int));
	int *chosen = xcalloc(r, sizeof(int));
	double hb[TB_POLICY_COUNT];
	const char *fallback = NULL;
	struct eval_state state;

	for (int p = 0; p < TB_POLICY_COUNT; p++)
		hb[p] = NAN;
	if (!occ->free_cores)
		occ->free_cores = malloc(md->topo->n_nodes * sizeof(int));
	if (!occ->free_cores || !commtree_save_state(te, &state)) {
		/* No model of the cores: tree's choice, unrecorded. */
		debug("topology/commtree: %pJ: no core model (%s); topology/tree's choice",
		      job_ptr, occ->free_cores ? "GRES" : "no memory");
		xfree(tree_slots);
		xfree(node_of_rank);
		xfree(chosen);
		return tree_eval(te);
	}
	_fill_cores(md, te, occ);

	/* 1. The default: tree's own choice on Slurm's offer. */
	rc = tree_eval(te);
	if (rc != SLURM_SUCCESS || !_tree_slots(md, te, r, tree_slots)) {
		/* Tree cannot place the job now (or placed it outside the
		 * model): that answer stands, under every strategy. */
		if (rc == SLURM_SUCCESS)
			debug("topology/commtree: %pJ: tree's cores are outside the model or fewer than the ranks; unrecorded",
			      job_ptr);
		goto out;
	}
	if (!record && (policy == TB_POLICY_TM_A ||
			policy == TB_POLICY_DEFAULT))
		goto out;	/* a trial placement on tree's cores */
	if (record) {
		hb[TB_POLICY_DEFAULT] = tb_hop_bytes_cores(md->topo, m,
							   tree_slots);
		for (int p = 0; p < TB_POLICY_COUNT; p++)
			if (p != (int) policy && _is_tm((enum tb_policy) p))
				hb[p] = _place(md, occ, m, (enum tb_policy) p,
					       tree_slots, node_of_rank);
	}
	/* 2. The strategy's cores, Slurm accounting them. */
	if (policy == TB_POLICY_DEFAULT)
		memcpy(chosen, tree_slots, r * sizeof(int));
	else
		hb[policy] = _place(md, occ, m, policy, tree_slots, chosen);
	if (isnan(hb[policy])) {
		fallback = "policy_refused";
	} else if (policy != TB_POLICY_TM_A && policy != TB_POLICY_DEFAULT) {
		commtree_restore_state(te, &state);
		_narrow(md, te, chosen, r);
		rc = tree_eval(te);
		if (rc != SLURM_SUCCESS) {
			debug("topology/commtree: %pJ: %s's cores refused (%s); using topology/tree's",
			      job_ptr, tb_policy_name(policy),
			      slurm_strerror(rc));
			commtree_restore_state(te, &state);
			rc = tree_eval(te);
			fallback = "refused";
		}
	}
	if (fallback) {
		policy = TB_POLICY_DEFAULT;
		memcpy(chosen, tree_slots, r * sizeof(int));
	}
	if (rc == SLURM_SUCCESS && record)
		_record(md, job_ptr, policy, m, prof, hb, chosen, fallback);
out:
	commtree_free_state(&state);
	xfree(tree_slots);
	xfree(node_of_rank);
	xfree(chosen);
	return rc;
}
