/* make alloc's ranks (plugins/lib/place_cores.h, the scenario's cores,
 * busycores, pair and `job ranks=` lines): TreeMatch's Figure 2 (IJHPCA
 * 2018: hop-bytes 360, and 660 with only the even cores free) as
 * scenarios, then hand-worked cases kept apart from the paper's. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "helpers.h"
#include "place_cores.h"
#include "tests.h"

#define FIGURE2 "cores 2\nleaf s0 2 0 0\nleaf s1 2 0 0\n" \
	"pair 0 1 5\npair 0 2 10\npair 0 3 100\npair 1 2 20\npair 1 3 5\n" \
	"pair 2 3 10\n"

/* Places s's job under p; the hop-bytes at core and node level into
 * core and node (NAN when refused). */
static enum tb_status place(const struct tb_scenario *s, enum tb_policy p,
			    int *node_of, double *core, double *node)
{
	char why[200];
	enum tb_status rc = tb_place_ranks(p, s->topo, s->occ, &s->job,
					   &s->opts, node_of, why, sizeof(why));

	*core = rc == TB_OK ? tb_hop_bytes_cores(s->topo, s->matrix, node_of) :
			      NAN;
	*node = rc == TB_OK ? tb_hop_bytes_nodes(s->topo, s->matrix, node_of) :
			      NAN;
	return rc;
}

static const enum tb_policy tm[] = { TB_POLICY_TM_A, TB_POLICY_TM_I,
				      TB_POLICY_TM_SUB, TB_POLICY_TM_SUB3 };

void test_alloc_figure2(void)
{
	struct tb_scenario *s = scenario(FIGURE2 "job ranks=4\n");
	struct tb_scenario *e = scenario(FIGURE2
		"busycores 0:1 1:1 2:1 3:1\njob ranks=4\n");
	int at[4];
	double core, node;

	CHECK_EQ(s->ranks, 4);
	CHECK_EQ(s->job.nodes, 0);
	CHECK_EQ(s->topo->nodes[0].cores, 2);
	/* The figure's first line: 0 and 3 on one node, 1 and 2 on its
	 * sibling, under every TreeMatch strategy (tm-a maps onto
	 * default's cores, which are those two nodes). */
	for (size_t k = 0; k < sizeof(tm) / sizeof(tm[0]); k++) {
		CHECK_EQ(place(s, tm[k], at, &core, &node), TB_OK);
		CHECK_NEAR(core, 360.0);
		CHECK_EQ(at[0], at[3]);
		CHECK_EQ(at[1], at[2]);
		CHECK(at[0] != at[1]);
		CHECK_EQ(s->topo->nodes[at[0]].leaf, s->topo->nodes[at[1]].leaf);
		/* At node level only the 4 cross pairs count, 2 hops each:
		 * (5 + 10 + 5 + 10) x 2. */
		CHECK_NEAR(node, 60.0);
	}
	/* Default: s0's 4 cores, ranks in blocks (0 1 | 2 3): (5 + 10) x 2
	 * within nodes, (10 + 100 + 20 + 5) x 4 across = 570. */
	CHECK_EQ(place(s, TB_POLICY_DEFAULT, at, &core, &node), TB_OK);
	CHECK_EQ(at[0], 0);
	CHECK_EQ(at[1], 0);
	CHECK_EQ(at[2], 1);
	CHECK_EQ(at[3], 1);
	CHECK_NEAR(core, 570.0);
	CHECK_NEAR(node, 270.0);
	/* The second line, only even cores free: 660, with 0 and 3 under
	 * one leaf. */
	CHECK(e->occ->free_cores != NULL);
	CHECK_EQ(e->occ->state[2], TB_NODE_BUSY);
	for (size_t k = 0; k < sizeof(tm) / sizeof(tm[0]); k++) {
		CHECK_EQ(place(e, tm[k], at, &core, &node), TB_OK);
		CHECK_NEAR(core, 660.0);
		CHECK(at[0] != at[3]);
		CHECK_EQ(s->topo->nodes[at[0]].leaf, s->topo->nodes[at[3]].leaf);
		CHECK_NEAR(node, 360.0);
	}
	/* Default: one rank per node in node order, 870. */
	CHECK_EQ(place(e, TB_POLICY_DEFAULT, at, &core, &node), TB_OK);
	for (int r = 0; r < 4; r++)
		CHECK_EQ(at[r], r);
	CHECK_NEAR(core, 870.0);
	/* A node-level policy takes whole nodes: none is free. */
	CHECK_EQ(place(e, TB_POLICY_GREEDY, at, &core, &node), TB_ENOSPACE);
	tb_scenario_free(s);
	tb_scenario_free(e);
}

/*
 * Hand-worked, not the paper's: two leaves of two 2-core nodes, node 0
 * with one busy core (7 free cores: leaf a 3, leaf b 4). Ranks 0-2 and
 * 1-3 talk (100 each), 0-1 a little (1).
 */
#define CROSS "cores 2\nleaf a 2 0 0\nleaf b 2 0 0\nbusycores 0:1\n" \
	"pair 0 2 100\npair 1 3 100\npair 0 1 1\n"

void test_alloc_hand_worked(void)
{
	struct tb_scenario *s = scenario(CROSS "job ranks=4\n");
	struct tb_scenario *n = scenario(CROSS "job ranks=4 nodes=2\n");
	int at[4];
	double core, node;

	/* Core by core. Default: leaf b is the only leaf with 4 free cores;
	 * blocks 0 1 | 2 3 on nodes 2 and 3: 100 x 4 x 2 + 1 x 2 = 802 at
	 * core level, 100 x 2 x 2 = 400 at node level. */
	CHECK_EQ(place(s, TB_POLICY_DEFAULT, at, &core, &node), TB_OK);
	CHECK_EQ(at[0], 2);
	CHECK_EQ(at[1], 2);
	CHECK_EQ(at[2], 3);
	CHECK_EQ(at[3], 3);
	CHECK_NEAR(core, 802.0);
	CHECK_NEAR(node, 400.0);
	/* TreeMatch: 0 with 2 and 1 with 3 on two nodes of leaf b:
	 * 100 x 2 x 2 + 1 x 4 = 404, and 1 x 2 = 2 at node level. */
	for (size_t k = 0; k < sizeof(tm) / sizeof(tm[0]); k++) {
		CHECK_EQ(place(s, tm[k], at, &core, &node), TB_OK);
		CHECK_NEAR(core, 404.0);
		CHECK_NEAR(node, 2.0);
		CHECK_EQ(at[0], at[2]);
		CHECK_EQ(at[1], at[3]);
		CHECK(at[0] >= 2 && at[1] >= 2);
	}
	/* Node-level policies take ceil(4 / 2) = 2 whole free nodes; node 0
	 * is partly busy, so never one of them. */
	CHECK_EQ(place(s, TB_POLICY_GREEDY, at, &core, &node), TB_OK);
	for (int r = 0; r < 4; r++)
		CHECK(at[r] != 0);
	/* -n 4 -N 2: ranks in blocks over whole nodes, under TreeMatch too
	 * (its node-level policies keep the blocks): leaf b, 802. */
	CHECK_EQ(n->job.nodes, 2);
	CHECK_EQ(place(n, TB_POLICY_DEFAULT, at, &core, &node), TB_OK);
	CHECK_NEAR(core, 802.0);
	CHECK_EQ(place(n, TB_POLICY_TM_I, at, &core, &node), TB_OK);
	CHECK_NEAR(core, 802.0);
	CHECK_NEAR(node, 400.0);
	CHECK_EQ(at[0], at[1]);
	CHECK_EQ(at[2], at[3]);
	tb_scenario_free(s);
	tb_scenario_free(n);
}

static void expect_error(const char *text, const char *expected)
{
	expect_scenario_error(text, expected);	/* helpers.h */
}

void test_alloc_scenario_errors(void)
{
	expect_error("leaf a 2 0 0\ncores 0\njob ranks=2\n",
		     "x:2: expected 'cores <cores per node, 1 to 4096>'");
	expect_error("cores 2\nleaf a 2 0 0\nbusycores 0:3\njob ranks=2\n",
		     "x:3: busycores: node 0 has 2 cores, not 3 to be busy");
	expect_error("cores 2\nleaf a 2 1 0\nbusycores 0:1\njob ranks=2\n",
		     "x:3: busycores: node 0 is busy already");
	expect_error("cores 2\nleaf a 2 0 0\nbusycores 5:1\njob ranks=2\n",
		     "x:3: busycores: node 5, the machine has 2");
	expect_error("cores 2\nleaf a 2 0 0\nbusycores 0-1\njob ranks=2\n",
		     "x:3: busycores: expected <node>:<busy cores>, got '0-1'");
	expect_error("leaf a 2 0 0\npair 0 1 5\npair 1 0 5\njob ranks=2\n",
		     "x:3: pair 1 0 given twice (line 2): each pair once");
	expect_error("leaf a 2 0 0\npair 0 2 5\njob ranks=2\n",
		     "x:2: pair: rank 2, the job has 2 (0-1)");
	expect_error("leaf a 2 0 0\npair 0 1 0\njob ranks=2\n",
		     "x:2: pair: volume '0': expected a number above 0");
	expect_error("leaf a 2 0 0\njob ranks=2 nodes=3\n",
		     "x:2: job: nodes=3 is more than ranks=2");
	expect_error("leaf a 2 0 0\njob ranks=zero\n",
		     "x:2: ranks='zero': expected a number of ranks");
	expect_error("leaf a 2 0 0\njob comm=1\n",
		     "x:2: job needs nodes=<n> or ranks=<n>");
	expect_error("torus 2 2 1\ncores 2\njob nodes=2\n",
		     "'cores' is for 'leaf' or 'router' machines, not a torus");
	expect_error("leaf a 2 0 0\npair 0 1 5\njob nodes=2\neval a:2\n",
		     "x:4: 'eval' takes a node job");
}

/*
 * Slurm's tree best-fits leaves by offered nodes, not free cores
 * (tb_tree_cores; eval_nodes_tree.c's _topo_compare_switches): leaf a has
 * 2 free 4-core nodes (8 cores), leaf b 4 nodes with 1 free core each (4
 * cores). Both fit 4 ranks; a has fewer nodes, so default takes node 0's
 * 4 cores (a model by free cores would take b's 4 nodes, one core each).
 * 6 ranks: only a fits, nodes 0 and 1 (4 + 2). 10 ranks: neither leaf
 * fits; tied under one parent, the one with more nodes (b) first, all 4 of
 * its cores, then a's node 0 (4) and 2 of node 1's.
 */
void test_alloc_tree_cores_best_fit_by_nodes(void)
{
	const char *m = "cores 4\nleaf a 2 0 0\nleaf b 4 0 0\n"
			"busycores 2:3 3:3 4:3 5:3\npair 0 1 1\n";
	char text[256];
	int at[10];
	double core, node;
	struct tb_scenario *s;

	snprintf(text, sizeof(text), "%sjob ranks=4\n", m);
	s = scenario(text);
	CHECK_EQ(place(s, TB_POLICY_DEFAULT, at, &core, &node), TB_OK);
	for (int r = 0; r < 4; r++)
		CHECK_EQ(at[r], 0);
	tb_scenario_free(s);

	snprintf(text, sizeof(text), "%sjob ranks=6\n", m);
	s = scenario(text);
	CHECK_EQ(place(s, TB_POLICY_DEFAULT, at, &core, &node), TB_OK);
	CHECK_EQ(at[3], 0);
	CHECK_EQ(at[4], 1);
	CHECK_EQ(at[5], 1);
	tb_scenario_free(s);

	snprintf(text, sizeof(text), "%sjob ranks=10\n", m);
	s = scenario(text);
	CHECK_EQ(place(s, TB_POLICY_DEFAULT, at, &core, &node), TB_OK);
	/* Blocks in node index order: node 0's 4, node 1's 2, then b's. */
	CHECK_EQ(at[0], 0);
	CHECK_EQ(at[3], 0);
	CHECK_EQ(at[4], 1);
	CHECK_EQ(at[5], 1);
	for (int r = 6; r < 10; r++)
		CHECK_EQ(at[r], r - 4);
	tb_scenario_free(s);
}
