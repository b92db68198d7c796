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
 * Whenever the library cannot decide (no topology JSON, a job with -w or
 * --contiguous, a policy failure), tree's own choice stands: a job is
 * never refused here for something the library did wrong.
 */
#include <math.h>
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
#include "../lib/cost.h"
#include "../lib/matrix.h"
#include "../lib/policy.h"
#include "../lib/profile.h"

/* slurmctld defines job_list; slurmd and the clients load this plugin too
 * and need the symbol to resolve. */
list_t *job_list __attribute__((weak)) = NULL;

static struct tb_topology *topo;
static int *slurm_of;		/* topology node -> Slurm node index, or -1 */
static int *topo_of;		/* Slurm node index -> topology node, or -1 */
static int topo_of_count;

/*
 * Whether a job's matrix parsed, by job id (direct-mapped: a job pushed out
 * is parsed again). A matrix cannot change after submission, and backfill
 * tests every pending job several times a cycle; parsing a 100 KB matrix
 * each time showed in slurmctld's CPU time.
 */
#define MATRIX_SEEN_SLOTS 4096
enum { MATRIX_UNSEEN, MATRIX_OK, MATRIX_BAD };
struct matrix_seen {
	uint32_t job_id;
	int state;
};
static struct matrix_seen matrix_seen[MATRIX_SEEN_SLOTS];

extern void commtree_free_topology(void)
{
	tb_topology_free(topo);
	topo = NULL;
	xfree(slurm_of);
	xfree(topo_of);
	topo_of_count = 0;
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

/* TopologyParam=...,policy_<name>,... ; default when absent or unknown. */
static enum tb_policy _policy(void)
{
	static char *warned;
	const char *p = xstrstr(slurm_conf.topology_param, "policy_");
	char name[32];
	enum tb_policy policy;
	size_t n;

	if (!p)
		return TB_POLICY_DEFAULT;
	p += strlen("policy_");
	n = strcspn(p, ",");
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, p, n);
	name[n] = '\0';
	if (tb_policy_parse(name, &policy)) {
		if (xstrcmp(warned, name)) {
			error("topology/commtree: unknown policy '%s' in TopologyParam (default, greedy, balanced, adaptive); using default",
			      name);
			xfree(warned);
			warned = xstrdup(name);
		}
		return TB_POLICY_DEFAULT;
	}
	return policy;
}

/* NAME=value in the job's SPANK environment (spank_testbed.c puts the
 * --comm and --comm-matrix values there), or NULL. */
static const char *_spank_value(job_record_t *job_ptr, const char *name)
{
	size_t n = strlen(name);

	for (uint32_t i = 0; i < job_ptr->spank_job_env_size; i++) {
		const char *e = job_ptr->spank_job_env[i];
		if (e && !strncmp(e, name, n) && e[n] == '=')
			return e + n + 1;
	}
	return NULL;
}

/* Logs a job's bad input once, not at every scheduling pass. */
static void _warn_once(job_record_t *job_ptr, const char *why)
{
	static uint32_t last_job_id;

	if (job_ptr->job_id == last_job_id)
		return;
	last_job_id = job_ptr->job_id;
	error("topology/commtree: %pJ: %s; allocating as default", job_ptr,
	      why);
}

/* The profile from --comment (the study's logs), overridden by --comm.
 * Returns NULL, or why the job must fall back to default. */
static const char *_job_profile(job_record_t *job_ptr, struct tb_profile *prof,
				bool quiet)
{
	const char *spank = _spank_value(job_ptr, "TESTBED_PROFILE");
	struct tb_profile given;
	char err[160], why[200];

	if (tb_profile_parse(job_ptr->comment, prof, err, sizeof(err))) {
		/* No profile: a compute-intensive job of the log. */
		*prof = (struct tb_profile) { .comm = 0,
					      .pattern = TB_PATTERN_RD,
					      .comm_fraction = 0.5 };
		if (job_ptr->comment && !quiet)
			debug("topology/commtree: %pJ %s", job_ptr, err);
	}
	if (_spank_value(job_ptr, "TESTBED_COMM_MATRIX"))
		prof->comm = 1;
	if (!spank)
		return NULL;
	if (tb_profile_parse(spank, &given, err, sizeof(err))) {
		snprintf(why, sizeof(why), "--comm: %s", err);
		if (!quiet)
			_warn_once(job_ptr, why);
		return "bad_comm";
	}
	prof->comm = given.comm;
	prof->pattern = given.pattern;
	prof->comm_fraction = given.comm_fraction;
	return NULL;
}

/* The --comm-matrix, if any, into *out when need is set (else only checked,
 * once per job). Returns NULL, or why the job must fall back to default. */
static const char *_job_matrix(job_record_t *job_ptr, struct tb_matrix **out,
			       bool need)
{
	const char *spank = _spank_value(job_ptr, "TESTBED_COMM_MATRIX");
	uint32_t id = job_ptr->job_id;
	struct matrix_seen *seen = &matrix_seen[id % MATRIX_SEEN_SLOTS];
	char err[256], *text;
	int rc;

	*out = NULL;
	if (!spank)
		return NULL;
	if (!need && id && seen->job_id == id && seen->state != MATRIX_UNSEEN)
		return seen->state == MATRIX_BAD ? "bad_matrix" : NULL;
	text = xstrdup(spank);
	for (char *c = text; *c; c++)
		if (*c == ';')
			*c = '\n';
	rc = tb_matrix_parse(text, strlen(text), "--comm-matrix", out, err,
			     sizeof(err));
	xfree(text);
	if (id) {
		seen->job_id = id;
		seen->state = rc ? MATRIX_BAD : MATRIX_OK;
	}
	if (!need) {
		tb_matrix_free(*out);
		*out = NULL;
	}
	if (rc) {
		_warn_once(job_ptr, err);
		return "bad_matrix";
	}
	return NULL;
}

struct mark_args {
	struct tb_occupancy *occ;
};

static int _mark_comm_job(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	struct mark_args *args = arg;
	struct tb_profile prof;

	if (!IS_JOB_RUNNING(job_ptr) || !job_ptr->node_bitmap)
		return 0;
	if (_job_profile(job_ptr, &prof, true) || !prof.comm)
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
		list_for_each(job_list, _mark_comm_job, &args);
	return occ;
}

/* Replaces or adds NAME=value in the job's supplemental environment. */
static void _env_set(job_record_t *job_ptr, const char *name, char *value)
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

/* Costs of every policy on the snapshot, written where sacct and the batch
 * script find them. */
static void _record(job_record_t *job_ptr, enum tb_policy policy,
		    const struct tb_occupancy *occ, const struct tb_job *job,
		    const struct tb_profile *prof, const struct tb_matrix *matrix,
		    const char *fallback)
{
	double cost[TB_POLICY_COUNT], hop_bytes[TB_POLICY_COUNT];
	enum tb_policy denominator = tb_denominator_policy(NULL);
	int *alloc = xcalloc(job->nodes, sizeof(int));
	char *text = NULL, val[64];
	double scaled;

	for (int p = 0; p < TB_POLICY_COUNT; p++) {
		cost[p] = hop_bytes[p] = NAN;
		if (tb_allocate((enum tb_policy) p, topo, occ, job, alloc) !=
		    TB_OK)
			continue;
		(void) tb_allocation_cost(topo, occ, job, alloc, &cost[p]);
		if (matrix)
			hop_bytes[p] = tb_hop_bytes(topo, matrix, alloc,
						    job->nodes);
	}
	xfree(alloc);
	/* Eq. 7 divides by the study's baseline (default1905); cost_default
	 * below stays the cost of policy default, Slurm 24.11's tree. */
	scaled = tb_scaled_runtime(job, prof->runtime, cost[policy],
				   cost[denominator]);
	xstrfmtcat(text, "policy=%s;comm=%d;pattern=%s;comm_percent=%g",
		   tb_policy_name(policy), job->comm,
		   tb_pattern_name(job->pattern), prof->comm_fraction * 100);
	xstrfmtcat(text, ";cost=%.6g;cost_default=%.6g", cost[policy],
		   cost[TB_POLICY_DEFAULT]);
	for (int p = TB_POLICY_DEFAULT + 1; p < TB_POLICY_COUNT; p++)
		xstrfmtcat(text, ";cost_%s=%.6g",
			   tb_policy_name((enum tb_policy) p), cost[p]);
	xstrfmtcat(text, ";denominator=%s", tb_policy_name(denominator));
	if (prof->runtime > 0)
		xstrfmtcat(text, ";runtime_base=%.6g;runtime_scaled=%.6g",
			   prof->runtime, scaled);
	if (matrix)
		xstrfmtcat(text, ";matrix_ranks=%d;hop_bytes=%.6g;hop_bytes_default=%.6g",
			   matrix->ranks, hop_bytes[policy],
			   hop_bytes[TB_POLICY_DEFAULT]);
	if (fallback)
		xstrfmtcat(text, ";fallback=%s", fallback);
	xfree(job_ptr->admin_comment);
	job_ptr->admin_comment = text;

	_env_set(job_ptr, "TESTBED_POLICY", (char *) tb_policy_name(policy));
	snprintf(val, sizeof(val), "%.6g", cost[policy]);
	_env_set(job_ptr, "TESTBED_COST", val);
	snprintf(val, sizeof(val), "%.6g", cost[TB_POLICY_DEFAULT]);
	_env_set(job_ptr, "TESTBED_COST_DEFAULT", val);
	if (prof->runtime > 0) {
		snprintf(val, sizeof(val), "%.3f", scaled);
		_env_set(job_ptr, "TESTBED_RUNTIME_SCALED", val);
	}
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

extern int commtree_eval(topology_eval_t *topo_eval,
			 commtree_tree_eval_t tree_eval)
{
	job_record_t *job_ptr = topo_eval->job_ptr;
	enum tb_policy policy = _policy();
	bool timing = xstrstr(slurm_conf.topology_param, "commtree_timing");
	struct tb_occupancy *occ;
	struct tb_matrix *matrix = NULL;
	struct tb_profile prof;
	struct tb_job job;
	const char *fallback;
	bool record;
	int *alloc = NULL, rc;
	bitstr_t *saved = NULL;
	double t0, snapshot_us, tree_us;

	if (!topo || !job_ptr || !job_ptr->details ||
	    job_ptr->details->req_node_bitmap || job_ptr->details->contiguous ||
	    topo_eval->req_nodes < 1 ||
	    topo_eval->req_nodes > (uint32_t) topo->n_nodes)
		return tree_eval(topo_eval);
	t0 = timing ? _now_us() : 0;
	if (!(occ = _snapshot(topo_eval)))
		return tree_eval(topo_eval);
	snapshot_us = timing ? _now_us() - t0 : 0;
	/*
	 * Backfill tests a pending job many times a cycle (once per group of
	 * running jobs it lets end) and then places it again, without
	 * BACKFILL_TEST, to start it: recording only then keeps the four
	 * policies' costs and hop-bytes out of every test.
	 */
	record = job_ptr->job_id && IS_JOB_PENDING(job_ptr) &&
		 !(job_ptr->bit_flags & BACKFILL_TEST);
	fallback = _job_profile(job_ptr, &prof, false);
	if (!fallback)
		fallback = _job_matrix(job_ptr, &matrix, record);
	if (fallback)
		policy = TB_POLICY_DEFAULT;
	job = (struct tb_job) {
		.nodes = (int) topo_eval->req_nodes,
		.comm = prof.comm,
		.pattern = prof.pattern,
		.comm_fraction = prof.comm_fraction,
	};

	if (policy != TB_POLICY_DEFAULT) {
		alloc = xcalloc(job.nodes, sizeof(int));
		if (tb_allocate(policy, topo, occ, &job, alloc) == TB_OK) {
			saved = bit_copy(topo_eval->node_map);
			bit_clear_all(topo_eval->node_map);
			for (int k = 0; k < job.nodes; k++)
				bit_set(topo_eval->node_map, slurm_of[alloc[k]]);
		} else {
			policy = TB_POLICY_DEFAULT;
		}
		xfree(alloc);
	}
	t0 = timing ? _now_us() : 0;
	rc = tree_eval(topo_eval);
	tree_us = timing ? _now_us() - t0 : 0;
	if (saved && rc != SLURM_SUCCESS) {
		/* Tree could not account for our choice: its own stands. */
		debug("topology/commtree: %pJ: %s's nodes refused (%s); using topology/tree's",
		      job_ptr, tb_policy_name(policy), slurm_strerror(rc));
		bit_copybits(topo_eval->node_map, saved);
		policy = TB_POLICY_DEFAULT;
		rc = tree_eval(topo_eval);
	}
	FREE_NULL_BITMAP(saved);
	if (timing)
		_log_timing(job_ptr, policy, occ, &job, snapshot_us, tree_us);
	if (rc == SLURM_SUCCESS && record)
		_record(job_ptr, policy, occ, &job, &prof, matrix, fallback);
	tb_matrix_free(matrix);
	tb_occupancy_free(occ);
	return rc;
}
