/*
 * The router map of a topology (topology.h, struct tb_router): which nodes
 * hang on which dragonfly router, and the router's chassis and group. The
 * NeDD strategies work router by router (L67, L76, L94), and its traffic
 * and stall models sum over a router's nodes and a chassis' routers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

void tb_topology_free_routers(struct tb_topology *t)
{
	for (int r = 0; r < t->n_routers; r++) {
		free(t->routers[r].name);
		free(t->routers[r].nodes);
	}
	free(t->routers);
	free(t->router_of);
	t->routers = NULL;
	t->router_of = NULL;
	t->n_routers = 0;
}

static int fail(char *err, size_t errlen, const char *what, const char *node)
{
	if (err && errlen)
		snprintf(err, errlen, "node %s: %s", node, what);
	return -1;
}

/* A node and its router field, to order nodes by router, then index. */
struct keyed {
	int router;
	int node;
};

static int by_router(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->router != y->router)
		return x->router < y->router ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

/* The leaf's name when it holds exactly the router's nodes, else rt<id>
 * with at least two digits, as emulated-clusters/generate.py names them. */
static char *router_name(const struct tb_topology *t,
			 const struct tb_router *r, int width)
{
	int leaf = t->nodes[r->nodes[0]].leaf;
	char buf[32];

	if (t->switches[leaf].n_nodes == r->n_nodes) {
		int same = 1;

		for (int k = 0; k < r->n_nodes && same; k++)
			same = t->nodes[r->nodes[k]].leaf == leaf;
		if (same)
			return strdup(t->switches[leaf].name);
	}
	snprintf(buf, sizeof(buf), "rt%0*d", width, r->id);
	return strdup(buf);
}

/* Each leaf switch stands for a router: a machine without router fields. */
static int leaves_as_routers(struct tb_topology *t)
{
	t->routers = calloc((size_t)t->n_leaves, sizeof(*t->routers));
	if (!t->routers)
		return -1;
	t->n_routers = t->n_leaves;
	for (int r = 0; r < t->n_leaves; r++) {
		const struct tb_switch *sw = &t->switches[t->leaves[r]];
		struct tb_router *rt = &t->routers[r];

		rt->id = r;
		rt->chassis = sw->parent;
		rt->group = -1;
		rt->n_nodes = sw->n_nodes;
		rt->nodes = malloc(sizeof(int) * (size_t)(sw->n_nodes ?
							  sw->n_nodes : 1));
		rt->name = strdup(sw->name);
		if (!rt->nodes || !rt->name)
			return -1;
		memcpy(rt->nodes, sw->nodes, sizeof(int) * (size_t)sw->n_nodes);
		for (int k = 0; k < sw->n_nodes; k++)
			t->router_of[sw->nodes[k]] = r;
	}
	return 0;
}

static int from_fields(struct tb_topology *t, char *err, size_t errlen)
{
	struct keyed *key = malloc(sizeof(*key) * (size_t)t->n_nodes);
	int *order = malloc(sizeof(int) * (size_t)t->n_nodes);
	int n = 0, width = 2, max_id = 0;

	if (!order || !key) {
		free(key);
		free(order);
		return fail(err, errlen, "out of memory", "?");
	}
	for (int i = 0; i < t->n_nodes; i++)
		key[i] = (struct keyed) { t->nodes[i].router, i };
	qsort(key, (size_t)t->n_nodes, sizeof(*key), by_router);
	for (int i = 0; i < t->n_nodes; i++)
		order[i] = key[i].node;
	free(key);
	for (int i = 0; i < t->n_nodes; i++)
		if (i == 0 || t->nodes[order[i]].router !=
			      t->nodes[order[i - 1]].router)
			n++;
	t->routers = calloc((size_t)n, sizeof(*t->routers));
	if (!t->routers) {
		free(order);
		return fail(err, errlen, "out of memory", "?");
	}
	for (int i = 0, r = -1; i < t->n_nodes; i++) {
		const struct tb_node *nd = &t->nodes[order[i]];
		struct tb_router *rt;

		if (i == 0 || nd->router != t->nodes[order[i - 1]].router) {
			int j = i;

			rt = &t->routers[++r];
			t->n_routers = r + 1;
			while (j < t->n_nodes &&
			       t->nodes[order[j]].router == nd->router)
				j++;
			rt->id = nd->router;
			rt->chassis = nd->chassis;
			rt->group = nd->group;
			rt->nodes = malloc(sizeof(int) * (size_t)(j - i));
			if (!rt->nodes) {
				free(order);
				return fail(err, errlen, "out of memory", "?");
			}
			if (rt->id > max_id)
				max_id = rt->id;
		}
		rt = &t->routers[r];
		if (nd->chassis != rt->chassis || nd->group != rt->group) {
			free(order);
			return fail(err, errlen, "its chassis or group differs "
				    "from its router's other nodes'", nd->name);
		}
		rt->nodes[rt->n_nodes++] = order[i];
		t->router_of[order[i]] = r;
	}
	free(order);
	for (int d = max_id; d >= 100; d /= 10)
		width++;
	for (int r = 0; r < t->n_routers; r++)
		if (!(t->routers[r].name = router_name(t, &t->routers[r],
							width)))
			return fail(err, errlen, "out of memory", "?");
	return 0;
}

int tb_topology_build_routers(struct tb_topology *t, char *err,
			      size_t errlen)
{
	int with = 0, rc;

	tb_topology_free_routers(t);
	for (int i = 0; i < t->n_nodes; i++)
		with += t->nodes[i].router >= 0;
	if (with && with != t->n_nodes) {
		for (int i = 0; i < t->n_nodes; i++)
			if (t->nodes[i].router < 0)
				return fail(err, errlen, "no router, while "
					    "other nodes have one",
					    t->nodes[i].name);
	}
	t->router_of = malloc(sizeof(int) * (size_t)t->n_nodes);
	if (!t->router_of)
		return fail(err, errlen, "out of memory", "?");
	if (with) {
		rc = from_fields(t, err, errlen);
	} else {
		rc = leaves_as_routers(t);
		if (rc)
			fail(err, errlen, "out of memory", "?");
	}
	if (rc)
		tb_topology_free_routers(t);
	return rc;
}
