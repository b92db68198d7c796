/*
 * The plugin glue's save and restore of tree's eval state
 * (plugins/slurm/commtree_state.c), against Slurm's own types and bitmaps.
 *
 * Issue 17, point 2: when tree refuses the nodes a policy chose, the glue
 * lets tree decide again; tree must then see the state it was first given.
 * Its eval changes node_map, the job's CPU count, and per node the core
 * bitmap and the available resources (topology.h marks them UPDATED).
 * Restoring node_map alone, as the glue once did, fails every check below
 * but the first.
 *
 * Built and run in the Slurm image's plugins stage (make glue-check), so a
 * failure stops the image build.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/xmalloc.h"

#include "commtree_eval.h"

#define NODES 8
#define CORES 16
#define SOCKETS 2

static int failures;

#include "glue_check.h"

struct machine {
	topology_eval_t te;
	bitstr_t *core[NODES];
	avail_res_t res[NODES];
	avail_res_t *res_ptr[NODES];
	uint16_t cps[NODES][SOCKETS];
};

/* Nodes 1, 2, 5 and 6 usable, each with its own cores and resources. */
static void build(struct machine *m)
{
	memset(m, 0, sizeof(*m));
	m->te.node_map = bit_alloc(NODES);
	m->te.avail_core = m->core;
	m->te.avail_res_array = m->res_ptr;
	m->te.avail_cpus = 40;
	for (int i = 0; i < NODES; i++) {
		m->core[i] = bit_alloc(CORES);
		for (int c = i % 3; c < CORES; c += 2)
			bit_set(m->core[i], c);
		m->res[i] = (avail_res_t) {
			.avail_cpus = 10 + i, .avail_res_cnt = 10 + i,
			.gres_min_cpus = i, .gres_max_tasks = 2 * i,
			.max_cpus = 16, .min_cpus = 1 + i, .sock_cnt = SOCKETS,
			.tpc = 1,
		};
		m->cps[i][0] = 4 + i;
		m->cps[i][1] = 3 + i;
		m->res[i].avail_cores_per_sock = m->cps[i];
		m->res_ptr[i] = &m->res[i];
	}
	bit_set(m->te.node_map, 1);
	bit_set(m->te.node_map, 2);
	bit_set(m->te.node_map, 5);
	bit_set(m->te.node_map, 6);
}

static void destroy(struct machine *m)
{
	FREE_NULL_BITMAP(m->te.node_map);
	for (int i = 0; i < NODES; i++)
		FREE_NULL_BITMAP(m->core[i]);
}

/* What tree's eval does to a state on a try that fails: it narrows the
 * nodes, trims their cores and resources, and sets the job's CPU count. */
static void tree_try(struct machine *m)
{
	bit_clear_all(m->te.node_map);
	bit_set(m->te.node_map, 6);
	m->te.avail_cpus = 4;
	m->te.max_nodes -= 1;
	for (int i = 0; i < NODES; i++) {
		bit_clear_all(m->core[i]);
		bit_set(m->core[i], 0);
		m->res[i].avail_cpus = 1;
		m->res[i].avail_res_cnt = 1;
		m->res[i].max_cpus = 1;
		m->res[i].min_cpus = 0;
		m->res[i].gres_max_tasks = 0;
		m->cps[i][0] = 0;
		m->cps[i][1] = 1;
	}
}

static bool same_node(struct machine *a, struct machine *b, int i)
{
	avail_res_t x = a->res[i], y = b->res[i];

	return x.avail_cpus == y.avail_cpus &&
	       x.avail_gpus == y.avail_gpus &&
	       x.avail_res_cnt == y.avail_res_cnt &&
	       x.gres_min_cpus == y.gres_min_cpus &&
	       x.gres_max_tasks == y.gres_max_tasks &&
	       x.max_cpus == y.max_cpus && x.min_cpus == y.min_cpus &&
	       x.sock_cnt == y.sock_cnt && x.spec_threads == y.spec_threads &&
	       x.tpc == y.tpc;
}

static void test_restore_gives_back_the_first_state(void)
{
	struct machine m, first;
	struct eval_state st;

	build(&m);
	build(&first);
	CHECK(commtree_save_state(&m.te, &st), "save refused a GRES-less job");
	tree_try(&m);
	commtree_restore_state(&m.te, &st);

	CHECK(bit_equal(m.te.node_map, first.te.node_map),
	      "node_map not restored");
	CHECK(m.te.max_nodes == first.te.max_nodes,
	      "max_nodes %u, first %u", m.te.max_nodes, first.te.max_nodes);
	CHECK(m.te.avail_cpus == first.te.avail_cpus,
	      "avail_cpus %u, first %u", m.te.avail_cpus,
	      first.te.avail_cpus);
	for (int i = 0; i < NODES; i++) {
		if (!bit_test(first.te.node_map, i))
			continue;
		CHECK(bit_equal(m.core[i], first.core[i]),
		      "node %d: avail_core not restored", i);
		CHECK(same_node(&m, &first, i),
		      "node %d: avail_res not restored (avail_cpus %u, first %u)",
		      i, m.res[i].avail_cpus, first.res[i].avail_cpus);
		CHECK(m.res[i].avail_cores_per_sock == m.cps[i],
		      "node %d: tree's per-socket array replaced", i);
		CHECK(m.cps[i][0] == first.cps[i][0] &&
		      m.cps[i][1] == first.cps[i][1],
		      "node %d: cores per socket %u,%u, first %u,%u", i,
		      m.cps[i][0], m.cps[i][1], first.cps[i][0],
		      first.cps[i][1]);
	}
	commtree_free_state(&st);
	destroy(&m);
	destroy(&first);
}

/* A second failed try after a restore must also be undone: the saved
 * copies are the glue's, not shared with tree's arrays. */
static void test_restore_twice(void)
{
	struct machine m, first;
	struct eval_state st;

	build(&m);
	build(&first);
	CHECK(commtree_save_state(&m.te, &st), "save refused");
	tree_try(&m);
	commtree_restore_state(&m.te, &st);
	tree_try(&m);
	commtree_restore_state(&m.te, &st);
	CHECK(bit_equal(m.core[5], first.core[5]) && same_node(&m, &first, 5) &&
	      m.cps[5][0] == first.cps[5][0],
	      "node 5 differs after a second restore");
	commtree_free_state(&st);
	destroy(&m);
	destroy(&first);
}

/* GRES lists cannot be copied: the glue must not try its policy then. */
static void test_gres_refused(void)
{
	struct machine m;
	struct eval_state st;

	build(&m);
	m.res[5].sock_gres_list = (list_t *) &m;	/* never dereferenced */
	CHECK(!commtree_save_state(&m.te, &st), "saved a state with GRES");
	CHECK(st.n == 0 && !st.node_map, "a refused save left copies");
	commtree_free_state(&st);
	m.res[5].sock_gres_list = NULL;
	destroy(&m);
}

int main(void)
{
	test_restore_gives_back_the_first_state();
	test_restore_twice();
	test_gres_refused();
	return GLUE_REPORT("commtree_state", 3);
}
