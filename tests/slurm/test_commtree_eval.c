/*
 * The plugin glue's eval (plugins/slurm/commtree_eval.c) for a job that
 * cannot start yet, against Slurm's own types, node table and bitmaps.
 *
 * Issue 30 (docs/results/2026-11-27-submit-families-startup.md, candidate
 * 2): an eval of a job whose begin time is ahead, or which waits on a
 * dependency, is tree's eval alone: node_map as tree leaves it on Slurm's
 * whole offer, tree asked once, no record. The glue used to build the
 * snapshot and let the policy narrow node_map first, so tree answered on
 * the policy's nodes: the first two checks fail on that code. The same job
 * once eligible still gets its policy's nodes and record (the control).
 *
 * A topology of two leaves of four nodes (n0-n3, n4-n7), policy firstfit
 * (the lowest free nodes: n0 n1 for two), and a stand-in for tree's eval
 * that keeps the highest nodes it is offered (n6 n7 of the whole offer):
 * the two answers differ, so each check tells which path ran.
 *
 * Built and run in the Slurm image's plugins stage (make glue-check), so a
 * failure stops the image build.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

#define NODES 8
#define CORES 4
#define JOB_NODES 2

static int failures;

#include "glue_check.h"

static const char topology_json[] =
	"{\"name\":\"t\",\"nodes\":["
	"{\"name\":\"n0\",\"cores\":4},{\"name\":\"n1\",\"cores\":4},"
	"{\"name\":\"n2\",\"cores\":4},{\"name\":\"n3\",\"cores\":4},"
	"{\"name\":\"n4\",\"cores\":4},{\"name\":\"n5\",\"cores\":4},"
	"{\"name\":\"n6\",\"cores\":4},{\"name\":\"n7\",\"cores\":4}],"
	"\"switches\":["
	"{\"name\":\"l0\",\"level\":0,\"parent\":\"top\",\"nodes\":[0,1,2,3]},"
	"{\"name\":\"l1\",\"level\":0,\"parent\":\"top\",\"nodes\":[4,5,6,7]},"
	"{\"name\":\"top\",\"level\":1,\"parent\":null,"
	"\"nodes\":[0,1,2,3,4,5,6,7]}]}";

/* What the stand-in for tree's eval saw. */
static int tree_calls;
static bitstr_t *tree_offer;	/* node_map at its first call */

/* Tree's stand-in: keeps the highest-numbered nodes it is offered, as many
 * as the job needs, and counts its calls. */
static int fake_tree(topology_eval_t *te)
{
	int need = MAX(te->min_nodes, te->req_nodes), got = 0;

	if (!tree_calls++)
		tree_offer = bit_copy(te->node_map);
	for (int i = bit_size(te->node_map) - 1; i >= 0; i--) {
		if (!bit_test(te->node_map, i))
			continue;
		if (got < need)
			got++;
		else
			bit_clear(te->node_map, i);
	}
	return got == need ? SLURM_SUCCESS : SLURM_ERROR;
}

/* A Slurm node table n0-n7 and the topology JSON beside a slurm.conf in
 * dir (get_extra_conf_path reads SLURM_CONF). */
static void machine_up(const char *dir)
{
	config_record_t *config;
	char path[PATH_MAX];
	FILE *f;

	slurm_conf.max_node_cnt = NO_VAL;
	slurm_conf.topology_param = xstrdup("policy_firstfit");
	init_node_conf();
	config = create_config_record();
	config->cpus = CORES;
	config->cores = CORES;
	config->tot_sockets = 1;
	config->threads = 1;
	for (int i = 0; i < NODES; i++) {
		node_record_t *node;
		char name[8];

		snprintf(name, sizeof(name), "n%d", i);
		if (create_node_record(config, name, &node) != SLURM_SUCCESS) {
			fprintf(stderr, "cannot create node %s\n", name);
			exit(1);
		}
	}
	snprintf(path, sizeof(path), "%s/topology.json", dir);
	if (!(f = fopen(path, "w")) || fputs(topology_json, f) < 0 ||
	    fclose(f)) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/slurm.conf", dir);
	setenv("SLURM_CONF", path, 1);
	commtree_load_topology();
}

struct eval {
	topology_eval_t te;
	job_record_t job;
	job_details_t details;
	bitstr_t *core[NODES];
	avail_res_t res[NODES];
	avail_res_t *res_ptr[NODES];
	uint16_t cps[NODES][1];
};

/* A pending job of JOB_NODES nodes (no profile: a compute job of the log)
 * offered every node, all free. */
static void eval_new(struct eval *e)
{
	memset(e, 0, sizeof(*e));
	e->job.job_id = 42;
	e->job.job_state = JOB_PENDING;
	e->job.details = &e->details;
	e->details.min_cpus = JOB_NODES;
	e->details.min_nodes = JOB_NODES;
	e->te.job_ptr = &e->job;
	e->te.min_nodes = JOB_NODES;
	e->te.req_nodes = JOB_NODES;
	e->te.max_nodes = JOB_NODES;
	e->te.node_map = bit_alloc(NODES);
	bit_set_all(e->te.node_map);
	e->te.avail_core = e->core;
	e->te.avail_res_array = e->res_ptr;
	for (int i = 0; i < NODES; i++) {
		e->core[i] = bit_alloc(CORES);
		bit_set_all(e->core[i]);
		e->cps[i][0] = CORES;
		e->res[i] = (avail_res_t) {
			.avail_cpus = CORES, .avail_res_cnt = CORES,
			.max_cpus = CORES, .min_cpus = 1, .sock_cnt = 1,
			.tpc = 1, .avail_cores_per_sock = e->cps[i],
		};
		e->res_ptr[i] = &e->res[i];
	}
	tree_calls = 0;
	FREE_NULL_BITMAP(tree_offer);
}

static void eval_free(struct eval *e)
{
	FREE_NULL_BITMAP(e->te.node_map);
	for (int i = 0; i < NODES; i++)
		FREE_NULL_BITMAP(e->core[i]);
	xfree(e->job.admin_comment);
	for (uint32_t i = 0; i < e->details.env_cnt; i++)
		xfree(e->details.env_sup[i]);
	xfree(e->details.env_sup);
	FREE_NULL_LIST(e->details.depend_list);
	FREE_NULL_BITMAP(tree_offer);
}

/* node_map holds exactly nodes a and b. */
static bool holds(bitstr_t *map, int a, int b)
{
	return bit_set_count(map) == 2 && bit_test(map, a) && bit_test(map, b);
}

/* The answer of a job that cannot start yet: tree's, asked once on the
 * whole offer, and no record. */
static void check_tree_alone(struct eval *e, int rc, const char *what)
{
	CHECK(rc == SLURM_SUCCESS, "%s: rc %d", what, rc);
	CHECK(holds(e->te.node_map, 6, 7),
	      "%s: node_map is not tree's choice on the whole offer (n6 n7)",
	      what);
	CHECK(tree_calls == 1 && tree_offer &&
	      bit_set_count(tree_offer) == NODES,
	      "%s: tree asked %d time(s), first on %d node(s), not once on all %d",
	      what, tree_calls, tree_offer ? bit_set_count(tree_offer) : -1,
	      NODES);
	CHECK(!e->job.admin_comment, "%s: a record was written: %s", what,
	      e->job.admin_comment);
	CHECK(!e->details.env_cnt, "%s: %u batch variable(s) set", what,
	      e->details.env_cnt);
}

static void test_begin_time_ahead(void)
{
	struct eval e;

	eval_new(&e);
	e.details.begin_time = time(NULL) + 3600;	/* --begin=now+1hour */
	check_tree_alone(&e, commtree_eval(&e.te, fake_tree), "later");
	eval_free(&e);
}

static void test_dependency_pending(void)
{
	static int dependency;	/* a list entry; never read */
	struct eval e;

	eval_new(&e);
	e.details.depend_list = list_create(NULL);
	list_append(e.details.depend_list, &dependency);
	check_tree_alone(&e, commtree_eval(&e.te, fake_tree), "dependency");
	eval_free(&e);
}

/* The control: the same job once its begin time has come (and with its
 * dependencies flushed, as Slurm does once they are fulfilled) gets the
 * policy's nodes, which tree accounts, and the record. Its begin time is
 * this very second: job_independent() lets it start then (begin_time >
 * now is false, job_mgr.c:16740), so the glue must not take it for a
 * later job either. */
static void test_eligible_gets_the_policy(void)
{
	struct eval e;
	int rc;

	eval_new(&e);
	e.details.begin_time = time(NULL);
	e.details.depend_list = list_create(NULL);
	rc = commtree_eval(&e.te, fake_tree);
	CHECK(rc == SLURM_SUCCESS, "eligible: rc %d", rc);
	CHECK(holds(e.te.node_map, 0, 1),
	      "eligible: node_map is not firstfit's choice (n0 n1)");
	CHECK(tree_calls == 1 && tree_offer && holds(tree_offer, 0, 1),
	      "eligible: tree not asked once on the policy's nodes");
	CHECK(e.job.admin_comment &&
	      !strncmp(e.job.admin_comment, "policy=firstfit;", 16),
	      "eligible: record %s", e.job.admin_comment ?
	      e.job.admin_comment : "(none)");
	eval_free(&e);
}

int main(void)
{
	log_options_t lo = LOG_OPTS_STDERR_ONLY;
	char dir[] = "/tmp/test-commtree-eval.XXXXXX", path[PATH_MAX];

	lo.stderr_level = LOG_LEVEL_ERROR;
	log_init("test-commtree-eval", lo, 0, NULL);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	machine_up(dir);
	test_begin_time_ahead();
	test_dependency_pending();
	test_eligible_gets_the_policy();
	commtree_free_topology();
	snprintf(path, sizeof(path), "%s/topology.json", dir);
	unlink(path);
	rmdir(dir);
	xfree(slurm_conf.topology_param);
	return GLUE_REPORT("commtree_eval", 3);
}
