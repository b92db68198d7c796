/*
 * Node choice for topology/commtree. Under the job and node write locks
 * slurmctld holds around every eval call, this
 *
 *   1. builds the policy library's snapshot: nodes usable for this job are
 *      free, the others busy, and nodes of running jobs whose profile says
 *      communication-intensive are busy-comm;
 *   2. lets the configured policy (TopologyParam=policy_<name>) choose;
 *   3. narrows node_map to exactly that choice and calls tree's eval on it,
 *      so cores, memory and GRES are accounted by Slurm's own code;
 *   4. for a pending job, records in AdminComment (sacct) and the batch
 *      environment the policy, its cost, the cost every other policy would
 *      have had on the same snapshot, and the scaled runtime (Eq. 7).
 *
 * A job that cannot start yet (a begin time ahead, or a dependency left:
 * _not_yet_eligible), which Slurm evaluates only to test it, gets none of
 * this: tree's eval on Slurm's whole offer (_eval_not_yet_eligible).
 *
 * Whenever the library cannot decide (no topology JSON, a job with -w or
 * --contiguous, a policy failure), tree's own choice stands: a job is
 * never refused here for something the library did wrong.
 *
 * The inputs (policy, readings, a job's profile and matrix) are read in
 * commtree_input.c, tree's state is saved and restored in commtree_state.c,
 * and step 4's record is written in commtree_record.c.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"
#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "commtree.h"
#include "commtree_eval.h"
#include "../lib/matrix.h"
#include "../lib/options.h"
#include "../lib/policy.h"
#include "../lib/profile.h"

/* slurmctld defines job_list; slurmd and the clients load this plugin too
 * and need the symbol to resolve. */
list_t *job_list __attribute__((weak)) = NULL;
bitstr_t *idle_node_bitmap __attribute__((weak)) = NULL;

static struct tb_topology *topo;
static int *slurm_of;		/* topology node -> Slurm node index, or -1 */
static int *topo_of;		/* Slurm node index -> topology node, or -1 */
static int topo_of_count;

extern void commtree_free_topology(void)
{
	tb_topology_free(topo);
	topo = NULL;
	xfree(slurm_of);
	xfree(topo_of);
	topo_of_count = 0;
	commtree_outage_free();
}

extern void commtree_load_topology(void)
{
	char *path = get_extra_conf_path("topology.json");
	char err[512];
	int missing = 0;

	commtree_free_topology();
	if (tb_topology_load(path, &topo, err, sizeof(err))) {
		error("topology/commtree: %s; every job gets topology/tree's choice",
		      err);
		xfree(path);
		return;
	}
	slurm_of = xcalloc(topo->n_nodes, sizeof(int));
	topo_of_count = node_record_count;
	topo_of = xcalloc(topo_of_count > 0 ? topo_of_count : 1, sizeof(int));
	for (int i = 0; i < topo_of_count; i++)
		topo_of[i] = -1;
	for (int k = 0; k < topo->n_nodes; k++) {
		node_record_t *node = find_node_record(topo->nodes[k].name);
		slurm_of[k] = node ? (int) node->index : -1;
		if (!node)
			missing++;
		else if ((int) node->index < topo_of_count)
			topo_of[node->index] = k;
	}
	info("topology/commtree: %s: %d nodes, %d leaves, %d levels%s",
	     path, topo->n_nodes, topo->n_leaves, topo->n_levels,
	     missing ? " (some nodes unknown to Slurm)" : "");
	xfree(path);
}

struct mark_args {
	struct tb_occupancy *occ;
};

/*
 * Marks a running job's nodes: which job holds each (occupancy `job`, for
 * the isolated policy, which derives every running job's class from its
 * nodes), and busy-comm for a communication-intensive job. A completing
 * job still holds its nodes and links.
 */
static int _mark_job(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	struct mark_args *args = arg;
	struct tb_occupancy *occ = args->occ;

	if (!(IS_JOB_RUNNING(job_ptr) || IS_JOB_COMPLETING(job_ptr)) ||
	    !job_ptr->node_bitmap)
		return 0;
	if (occ->job) {
		int id = occ->n_jobs++;
		for (int i = 0;
		     (i = bit_ffs_from_bit(job_ptr->node_bitmap, i)) >= 0; i++) {
			int k = i < topo_of_count ? topo_of[i] : -1;
			if (k >= 0)
				occ->job[k] = id;
		}
	}
	if (!IS_JOB_RUNNING(job_ptr) || !commtree_job_comm(job_ptr))
		return 0;
	for (int i = 0; (i = bit_ffs_from_bit(job_ptr->node_bitmap, i)) >= 0;
	     i++) {
		int k = i < topo_of_count ? topo_of[i] : -1;
		if (k >= 0 && args->occ->state[k] == TB_NODE_BUSY)
			args->occ->state[k] = TB_NODE_BUSY_COMM;
	}
	return 0;
}

static struct tb_occupancy *_snapshot(topology_eval_t *topo_eval)
{
	struct tb_occupancy *occ = tb_occupancy_new(topo->n_nodes);
	struct mark_args args = { occ };

	if (!occ)
		return NULL;
	/* Freed by tb_occupancy_free(), hence malloc. Without it the
	 * isolated policy cannot tell jobs apart: commtree_eval refuses to
	 * run it then. */
	occ->job = malloc(topo->n_nodes * sizeof(int));
	for (int k = 0; occ->job && k < topo->n_nodes; k++)
		occ->job[k] = -1;
	for (int k = 0; k < topo->n_nodes; k++) {
		int i = slurm_of[k];
		if (i < 0)
			occ->state[k] = TB_NODE_DOWN;
		else if (bit_test(topo_eval->node_map, i) &&
			 topo_eval->avail_res_array &&
			 topo_eval->avail_res_array[i] &&
			 topo_eval->avail_res_array[i]->avail_cpus)
			occ->state[k] = TB_NODE_FREE;
		else
			occ->state[k] = TB_NODE_BUSY;
	}
	if (job_list)
		list_for_each(job_list, _mark_job, &args);
	/* TOFA's pf, on a torus only (outage.txt). */
	if (topo->torus_node)
		occ->failure_prob = commtree_outage_pf(topo);
	return occ;
}

static double _now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* TopologyParam=...,commtree_timing: one log line per eval with the time
 * of the snapshot, of each policy's decision on it, and of tree's eval
 * (under policy default that is Slurm's own selection, unnarrowed), so
 * make bench compares them on the very same requests. */
static void _log_timing(job_record_t *job_ptr, enum tb_policy policy,
			const struct tb_occupancy *occ,
			const struct tb_job *job, double snapshot_us,
			double tree_us)
{
	int *alloc = xcalloc(job->nodes, sizeof(int));
	char *text = NULL;

	for (int p = 0; p < TB_POLICY_COUNT; p++) {
		double t0 = _now_us();
		enum tb_status st = tb_allocate((enum tb_policy) p, topo, occ,
						job, alloc);
		xstrfmtcat(text, " %s_us=%.1f%s",
			   tb_policy_name((enum tb_policy) p),
			   _now_us() - t0, st == TB_OK ? "" : "(refused)");
	}
	xfree(alloc);
	info("topology/commtree: timing nodes=%d policy=%s snapshot_us=%.1f tree_us=%.1f%s",
	     job->nodes, tb_policy_name(policy), snapshot_us, tree_us, text);
	xfree(text);
}

/*
 * Whether this eval only asks whether the job could ever run (at
 * submission, and after a failed placement: SELECT_MODE_TEST_ONLY, which
 * topology_eval_t does not carry). A test-only eval counts no allocation:
 * it offers busy nodes with all their CPUs free (cons_tres' max_cpus, the
 * node's free CPUs before the job's own limits). The generated partition
 * main is OverSubscribe=EXCLUSIVE, so there a placement to start is offered
 * only nodes without jobs; in the shared partition cores a partly busy
 * node is offered, but never with all its CPUs. On an idle machine the two
 * cannot be told apart, and then the record a test writes is the same
 * state's and is written again at the start.
 */
static bool _test_only(topology_eval_t *te)
{
	if (!idle_node_bitmap ||
	    bit_size(idle_node_bitmap) != bit_size(te->node_map))
		return false;
	if (!te->job_ptr->part_ptr || !te->job_ptr->part_ptr->max_share)
		return !bit_super_set(te->node_map, idle_node_bitmap);
	for (int i = 0; (i = bit_ffs_from_bit(te->node_map, i)) >= 0; i++) {
		avail_res_t *r = te->avail_res_array ?
				 te->avail_res_array[i] : NULL;
		node_record_t *node = node_record_table_ptr[i];

		/* A completing node's cores may be free already. */
		if (!bit_test(idle_node_bitmap, i) && r &&
		    !IS_NODE_COMPLETING(node) &&
		    r->max_cpus >= node->cpus - node->core_spec_cnt * node->tpc)
			return true;
	}
	return false;
}

/*
 * A job whose begin time is still ahead cannot start now, so an eval of it
 * can only be a test: the test slurmctld makes at its submission (whether
 * it could ever run). _test_only cannot tell that test from a start on an
 * idle machine, and the record (every policy's decision and cost) was
 * then computed at each submission of a replay, which submits its jobs
 * ahead of their begin times: that record is the one its start writes
 * again (issue 30: 21 submissions/s on curie). The same holds for a job
 * still waiting on a dependency.
 */
static bool _not_yet_eligible(job_record_t *job_ptr)
{
	job_details_t *d = job_ptr->details;

	if (!d)
		return false;
	if (d->begin_time && d->begin_time > time(NULL))
		return true;
	/*
	 * Nor can a job whose dependencies are not all fulfilled (Slurm
	 * flushes the list once they are). NeDD's job lists start each
	 * application job after:<congestor>+2; submitted while its lane was
	 * still idle (the congestor not started), its submission test wrote
	 * a record of no congestor (G = 0, factor 1) and set the job's
	 * sleep from it (the first repetitions of nedd-cori-onejob,
	 * docs/results/2026-11-26-nedd.md).
	 */
	return d->depend_list && list_count(d->depend_list) > 0;
}

/*
 * The nodes a job needs: its node count, or, for a job sized by tasks or
 * CPUs (`sbatch -n 64` with no -N has req_nodes = 1), as many of the
 * largest usable nodes as its CPUs need. On machines of mixed node sizes
 * (cori) the policy's nodes may then hold too few CPUs: tree refuses them
 * and the job is marked fallback=refused. 0: more than max_nodes.
 */
static int _nodes_needed(topology_eval_t *te)
{
	job_details_t *d = te->job_ptr->details;
	uint32_t nodes = MAX(te->req_nodes, te->min_nodes), cpus = 0;

	if (te->avail_res_array)
		for (int i = 0; (i = bit_ffs_from_bit(te->node_map, i)) >= 0;
		     i++)
			if (te->avail_res_array[i])
				cpus = MAX(cpus,
					   te->avail_res_array[i]->avail_cpus);
	if (cpus && d->min_cpus > cpus * nodes)
		nodes = (d->min_cpus + cpus - 1) / cpus;
	if (te->max_nodes && nodes > te->max_nodes)
		return 0;
	return (int) nodes;
}

/*
 * Whether a refusal means the job waits rather than gets tree's nodes:
 * only for a policy whose rules may forbid every placement now (the
 * registry's wait trait: isolated, SC18), never at a test-only eval, where
 * a refusal would tell Slurm the job can never run (and reject it at
 * submission), but always in backfill's trials (BACKFILL_TEST).
 *
 * A backfill trial at a later time offers nodes busy now, so _test_only
 * holds there too; yet it only asks whether the job could start at that
 * time, and a refusal says "not then" (Slurm 24.11.5: sched/backfill sets
 * BACKFILL_TEST around _try_sched, backfill.c:2946-3045, whose tests are
 * all SELECT_MODE_WILL_RUN; cons_tres' _future_run_test then lets the
 * running jobs end one group at a time and tests again after each,
 * job_test.c:2382-2590, and backfill tries its next start time). The
 * snapshot is the trial's state: the nodes of the jobs the trial lets end
 * are offered, so free, and _mark_job's job ids of free nodes are not read
 * by the isolated policy (policy_isolated.c iso_init), whose classes come
 * from the jobs still running then. When tree answered these trials
 * instead, Slurm reserved tree's nodes at tree's earliest time for jobs
 * Algorithm 1 could not place then, and replanned them, holding small
 * jobs back (docs/results/2026-11-27-sc18-twin-gap.md).
 */
static bool _must_wait(enum tb_policy policy, enum tb_status st,
		       topology_eval_t *te)
{
	return tb_policy_has(policy, TB_TRAIT_WAIT) &&
	       (st == TB_EWAIT || st == TB_ENOSPACE) &&
	       ((te->job_ptr->bit_flags & BACKFILL_TEST) || !_test_only(te));
}

/*
 * Tree's eval alone, for a job that cannot start yet (_not_yet_eligible).
 * Slurm evaluates such a job only to test it (Slurm 24.11.5 lines): at its
 * submission job_independent() is false, so no_alloc, and a batch job is
 * always test_only (slurmctld/job_mgr.c:4148, 4241-4249), through
 * select_nodes(test_only) to cons_tres' SELECT_MODE_TEST_ONLY, which
 * returns once the eval found nodes ("test 0 pass: test_only",
 * select/cons_tres/job_test.c:1336-1343). Neither the main scheduler nor
 * backfill evaluates it before job_independent() lets it start
 * (slurmctld/job_scheduler.c:394, 427-428 in build_job_queue;
 * sched/backfill/backfill.c:2585), and job_independent()
 * (job_mgr.c:16694-16766) makes our test on an earlier time(NULL): a begin
 * time ahead, or dependencies left (a fulfilled list is flushed,
 * job_scheduler.c:3415-3425).
 *
 * Of a test-only eval Slurm keeps the return code and how many nodes were
 * chosen (node_scheduler.c:1960-1971, 2716-2719: node_cnt_wag, squeue's
 * guess for a pending job); no record is written for such a job (record
 * below). The full path built the snapshot, walked every job, ran the
 * policy's decision and copied tree's state, only to have tree's eval give
 * that answer: work under slurmctld's job write lock at every submission
 * of a replay, which submits each job ahead of its begin time
 * (docs/results/2026-11-27-submit-families-startup.md, candidate 2).
 *
 * What changes: a pending later job's node-count guess is tree's rather
 * than the policy's (they differ only for a job sized by CPUs), so are the
 * nodes a will-run query of such a job reports (sbatch --test-only
 * --begin=...: job_mgr.c:4220-4228), and a policy with the wait trait
 * (isolated) no longer refuses such a test on a wholly idle machine, where
 * _test_only is false and _must_wait could refuse it, rejecting the
 * submission. With commtree_timing the skip logs a line of its own, which
 * bench/decision.py does not read.
 */
static int _eval_not_yet_eligible(topology_eval_t *topo_eval,
				  commtree_tree_eval_t tree_eval)
{
	bool timing = xstrstr(slurm_conf.topology_param, "commtree_timing");
	double t0 = timing ? _now_us() : 0;
	int rc = tree_eval(topo_eval);

	if (timing)
		info("topology/commtree: timing %pJ not yet eligible: tree_us=%.1f",
		     topo_eval->job_ptr, _now_us() - t0);
	return rc;
}

extern int commtree_eval(topology_eval_t *topo_eval,
			 commtree_tree_eval_t tree_eval)
{
	job_record_t *job_ptr = topo_eval->job_ptr;
	enum tb_policy policy;
	struct tb_options opts;
	bool timing;
	struct tb_occupancy *occ;
	struct tb_matrix *matrix = NULL;
	struct tb_profile prof;
	struct tb_job job;
	struct eval_state state;
	const char *fallback;
	bool record, saved = false;
	int *alloc = NULL, rc, nodes;
	double t0, snapshot_us, tree_us;

	if (job_ptr && job_ptr->details && _not_yet_eligible(job_ptr))
		return _eval_not_yet_eligible(topo_eval, tree_eval);
	policy = commtree_policy();
	opts = commtree_options();
	timing = xstrstr(slurm_conf.topology_param, "commtree_timing");
	if (!topo || !job_ptr || !job_ptr->details ||
	    job_ptr->details->req_node_bitmap || job_ptr->details->contiguous)
		return tree_eval(topo_eval);
	nodes = _nodes_needed(topo_eval);
	if (nodes < 1 || nodes > topo->n_nodes)
		return tree_eval(topo_eval);
	t0 = timing ? _now_us() : 0;
	if (!(occ = _snapshot(topo_eval)))
		return tree_eval(topo_eval);
	snapshot_us = timing ? _now_us() - t0 : 0;
	/*
	 * Backfill tests a pending job many times a cycle (once per group of
	 * running jobs it lets end) and then places it again, without
	 * BACKFILL_TEST, to start it: recording only then keeps the four
	 * policies' costs and hop-bytes out of every test. A job not yet
	 * eligible never gets here (_eval_not_yet_eligible).
	 */
	record = job_ptr->job_id && IS_JOB_PENDING(job_ptr) &&
		 !(job_ptr->bit_flags & BACKFILL_TEST) &&
		 !_test_only(topo_eval);
	fallback = commtree_job_profile(job_ptr, &prof, false);
	/* The TreeMatch policies place by the matrix, at every eval. */
	if (!fallback)
		fallback = commtree_job_matrix(job_ptr, &matrix,
					       record ||
					       tb_policy_has(policy,
							     TB_TRAIT_MATRIX));
	/* --switches=N: only tree knows how to honour it. */
	if (!fallback && policy != TB_POLICY_DEFAULT && job_ptr->req_switch)
		fallback = "switches";
	if (!fallback && commtree_core_level(topo_eval, policy, matrix)) {
		struct commtree_model md = { topo, slurm_of, topo_of,
					     topo_of_count };

		rc = commtree_eval_cores(&md, topo_eval, tree_eval, policy,
					 occ, matrix, &prof, record);
		tb_matrix_free(matrix);
		tb_occupancy_free(occ);
		return rc;
	}
	/*
	 * A job that may share nodes and took no core-level path: the
	 * node-level policies would take a partly busy node for a free one.
	 * Tree places it, and the record says why.
	 */
	if (!fallback && policy != TB_POLICY_DEFAULT && job_ptr->part_ptr &&
	    job_ptr->part_ptr->max_share &&
	    !(job_ptr->details->whole_node & WHOLE_NODE_REQUIRED))
		fallback = "shared_nodes";
	job = (struct tb_job) {
		.nodes = nodes,
		.comm = prof.comm,
		.pattern = prof.pattern,
		.comm_fraction = prof.comm_fraction,
		.matrix = matrix,
	};
	/* NeDD: the job's application and seed, and the routers' traffic
	 * from the job records (for its policies, and for every policy's
	 * decision in the record). */
	commtree_nedd_job(job_ptr, &opts, &job);
	if (tb_policy_info(policy)->family == TB_FAMILY_NEDD || record) {
		struct commtree_model md = { topo, slurm_of, topo_of,
					     topo_of_count };

		commtree_nedd_observe(&md, occ, &opts);
	}

	if (!fallback && policy != TB_POLICY_DEFAULT) {
		enum tb_status st;
		char why[256];

		alloc = xcalloc(job.nodes, sizeof(int));
		st = occ->job ? tb_allocate_why(policy, topo, occ, &job, &opts,
						alloc, why, sizeof(why)) :
				TB_ENOMEM;
		if (_must_wait(policy, st, topo_eval)) {
			/*
			 * The isolated policy (SC18) never places a job where
			 * it would share links, even with enough free nodes:
			 * the job waits (Resources in squeue), and backfill's
			 * trial placements find when it can start.
			 */
			debug2("topology/commtree: %pJ waits: %s", job_ptr, why);
			xfree(alloc);
			tb_matrix_free(matrix);
			tb_occupancy_free(occ);
			return SLURM_ERROR;
		}
		if (st != TB_OK) {
			fallback = tb_status_fallback(st);
		} else if (!(saved = commtree_save_state(topo_eval, &state))) {
			fallback = "gres";
		} else {
			bit_clear_all(topo_eval->node_map);
			for (int k = 0; k < job.nodes; k++)
				bit_set(topo_eval->node_map, slurm_of[alloc[k]]);
		}
		xfree(alloc);
	}
	if (fallback)
		policy = TB_POLICY_DEFAULT;
	t0 = timing ? _now_us() : 0;
	rc = tree_eval(topo_eval);
	tree_us = timing ? _now_us() - t0 : 0;
	if (saved && rc != SLURM_SUCCESS) {
		/* Tree could not account for our choice: its own stands,
		 * on the state it was first given. */
		debug("topology/commtree: %pJ: %s's nodes refused (%s); using topology/tree's",
		      job_ptr, tb_policy_name(policy), slurm_strerror(rc));
		commtree_restore_state(topo_eval, &state);
		policy = TB_POLICY_DEFAULT;
		fallback = "refused";
		rc = tree_eval(topo_eval);
	}
	if (saved)
		commtree_free_state(&state);
	if (timing)
		_log_timing(job_ptr, policy, occ, &job, snapshot_us, tree_us);
	if (rc == SLURM_SUCCESS && record)
	{
		struct commtree_model md = { topo, slurm_of, topo_of,
					     topo_of_count };

		commtree_record(&md, job_ptr, policy, occ, &job, &prof,
				matrix, fallback, topo_eval->node_map, &opts);
	}
	tb_matrix_free(matrix);
	tb_occupancy_free(occ);
	return rc;
}
