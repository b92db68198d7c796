#include "topology.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology_internal.h"

#define TB_MAX_LEVELS 20	/* Slurm's topology.conf limit */

int tb_err_set(char *err, size_t errlen, const char *msg, const char *arg)
{
	if (err && errlen)
		snprintf(err, errlen, msg, arg ? arg : "");
	return -1;
}

struct tb_topology *tb_topology_new(void)
{
	return calloc(1, sizeof(struct tb_topology));
}

void tb_topology_free(struct tb_topology *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->n_nodes; i++)
		free(t->nodes[i].name);
	for (int i = 0; i < t->n_switches; i++) {
		free(t->switches[i].name);
		free(t->switches[i].nodes);
		free(t->switches[i].parent_name);
	}
	free(t->nodes);
	free(t->switches);
	free(t->leaves);
	free(t->leaf_rank);
	free(t->lca_level);
	free(t->switch_slots);
	free(t->torus_node);
	tb_topology_free_routers(t);
	free(t);
}

int tb_topology_set_torus(struct tb_topology *t, int x, int y, int z,
			  char *err, size_t errlen)
{
	int dims[3] = { x, y, z }, *at;
	long size = (long)x * y * z;

	if (x < 1 || y < 1 || z < 1 || x > 4096 || y > 4096 || z > 4096 ||
	    size != t->n_nodes) {
		if (err && errlen)
			snprintf(err, errlen, "torus %dx%dx%d: expected three "
				 "dimensions from 1 to 4096 whose product is "
				 "the %d nodes", x, y, z, t->n_nodes);
		return -1;
	}
	at = malloc(sizeof(int) * (size_t)size);
	if (!at)
		return tb_err_set(err, errlen, "out of memory%s", NULL);
	for (long k = 0; k < size; k++)
		at[k] = -1;
	for (int i = 0; i < t->n_nodes; i++) {
		const int *c = t->nodes[i].coord;
		long k;

		for (int d = 0; d < 3; d++) {
			if (c[d] < 0 || c[d] >= dims[d]) {
				free(at);
				return tb_err_set(err, errlen, "node %s: torus "
						  "coordinates missing or out of "
						  "range", t->nodes[i].name);
			}
		}
		k = c[0] + (long)x * c[1] + (long)x * y * c[2];
		if (at[k] >= 0) {
			free(at);
			return tb_err_set(err, errlen, "node %s: torus "
					  "coordinates of another node",
					  t->nodes[i].name);
		}
		at[k] = i;
	}
	free(t->torus_node);
	t->torus_node = at;
	t->torus[0] = x;
	t->torus[1] = y;
	t->torus[2] = z;
	return 0;
}

/* FNV-1a, then MurmurHash3's finaliser: the index takes the low bits, and
 * names often differ only in their last digits. */
static uint32_t name_hash(const char *name)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		h ^= *p;
		h *= 16777619u;
	}
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* The slot holding name, or the empty slot where it would go. Ends because
 * the index is never more than half full. */
static size_t name_slot(const struct tb_topology *t, const char *name)
{
	size_t mask = (size_t)t->n_switch_slots - 1;
	size_t i = name_hash(name) & mask;

	while (t->switch_slots[i] >= 0 &&
	       strcmp(t->switches[t->switch_slots[i]].name, name))
		i = (i + 1) & mask;
	return i;
}

int tb_switch_find(const struct tb_topology *t, const char *name)
{
	if (!t->n_switch_slots)
		return -1;
	return t->switch_slots[name_slot(t, name)];
}

/* Room in the index for one more switch: at most half full keeps probes
 * short. On failure the index is unchanged, still right for the switches
 * there are. */
static int reserve_switch_slot(struct tb_topology *t)
{
	int need = t->n_switches + 1, cap = t->n_switch_slots;
	int *slots, *old = t->switch_slots;

	if (need <= cap / 2)
		return 0;
	if (!cap)
		cap = 32;
	while (cap / 2 < need) {
		if (cap > INT_MAX / 2)
			return -1;
		cap *= 2;
	}
	slots = malloc(sizeof(int) * (size_t)cap);
	if (!slots)
		return -1;
	for (int i = 0; i < cap; i++)
		slots[i] = -1;
	t->switch_slots = slots;
	t->n_switch_slots = cap;
	for (int s = 0; s < t->n_switches; s++)
		slots[name_slot(t, t->switches[s].name)] = s;
	free(old);
	return 0;
}

static int grow_array(void **arr, int n, int *cap, size_t size)
{
	void *p;
	int ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	p = realloc(*arr, (size_t)ncap * size);
	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* Capacities live outside the public struct: the builder is used only until
 * tb_topology_finish(), so plain realloc-by-doubling on the count is enough. */
static int cap_for(int n)
{
	int c = 16;

	while (c < n)
		c *= 2;
	return c;
}

int tb_topology_add_switch(struct tb_topology *t, const char *name,
			   const char *parent_name)
{
	int cap = t->n_switches ? cap_for(t->n_switches) : 0;
	struct tb_switch *s;
	size_t slot;

	/* Room first: growing rehashes, which would move the slot. */
	if (reserve_switch_slot(t))
		return -1;
	slot = name_slot(t, name);
	if (t->switch_slots[slot] >= 0)
		return -1;
	if (grow_array((void **)&t->switches, t->n_switches, &cap,
		       sizeof(*t->switches)))
		return -1;
	s = &t->switches[t->n_switches];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	if (!s->name)
		return -1;
	s->parent = TB_NO_PARENT;
	if (parent_name) {
		s->parent_name = strdup(parent_name);
		if (!s->parent_name) {
			free(s->name);
			return -1;
		}
	}
	t->switch_slots[slot] = t->n_switches;
	t->n_switches++;
	return 0;
}

int tb_topology_add_node(struct tb_topology *t, const char *name, int leaf,
			 int cores)
{
	int cap = t->n_nodes ? cap_for(t->n_nodes) : 0;
	struct tb_node *n;

	if (leaf < 0 || leaf >= t->n_switches)
		return -1;
	if (grow_array((void **)&t->nodes, t->n_nodes, &cap, sizeof(*t->nodes)))
		return -1;
	n = &t->nodes[t->n_nodes];
	memset(n, 0, sizeof(*n));
	n->name = strdup(name);
	if (!n->name)
		return -1;
	n->leaf = leaf;
	n->cores = cores;
	n->router = n->chassis = n->group = -1;
	for (int d = 0; d < TB_TORUS_DIMS; d++)
		n->coord[d] = -1;
	t->n_nodes++;
	return 0;
}

/* Levels from the leaves up; fails on cycles and on a node under a switch
 * that has child switches. */
static int assign_levels(struct tb_topology *t, char *err, size_t errlen)
{
	int changed = 1, rounds = 0;

	for (int i = 0; i < t->n_switches; i++)
		t->switches[i].level = 0;
	while (changed) {
		changed = 0;
		if (++rounds > TB_MAX_LEVELS + 1)
			return tb_err_set(err, errlen,
					  "switch tree has a cycle or more than 20 levels%s",
				       NULL);
		for (int i = 0; i < t->n_switches; i++) {
			int p = t->switches[i].parent;
			if (p != TB_NO_PARENT &&
			    t->switches[p].level < t->switches[i].level + 1) {
				t->switches[p].level = t->switches[i].level + 1;
				changed = 1;
			}
		}
	}
	for (int i = 0; i < t->n_nodes; i++)
		if (t->switches[t->nodes[i].leaf].level != 0)
			return tb_err_set(err, errlen,
					  "node %s hangs under a switch with child switches",
					  t->nodes[i].name);
	return 0;
}

static int add_root_if_needed(struct tb_topology *t)
{
	int tops = 0, root;

	for (int i = 0; i < t->n_switches; i++)
		if (t->switches[i].parent == TB_NO_PARENT)
			tops++;
	if (tops <= 1)
		return 0;
	if (tb_topology_add_switch(t, "root", NULL))
		return -1;
	root = t->n_switches - 1;
	for (int i = 0; i < root; i++)
		if (t->switches[i].parent == TB_NO_PARENT)
			t->switches[i].parent = root;
	return 0;
}

static int resolve_parents(struct tb_topology *t, char *err, size_t errlen)
{
	for (int i = 0; i < t->n_switches; i++) {
		char *pname = t->switches[i].parent_name;
		int p;

		t->switches[i].parent_name = NULL;
		if (!pname)
			continue;
		p = tb_switch_find(t, pname);
		if (p < 0 || p == i) {
			tb_err_set(err, errlen, "unknown parent switch '%s'", pname);
			free(pname);
			return -1;
		}
		free(pname);
		t->switches[i].parent = p;
	}
	return 0;
}

static int fill_switch_nodes(struct tb_topology *t)
{
	int *count = calloc((size_t)t->n_switches, sizeof(int));

	if (!count)
		return -1;
	for (int n = 0; n < t->n_nodes; n++)
		for (int s = t->nodes[n].leaf; s != TB_NO_PARENT;
		     s = t->switches[s].parent)
			count[s]++;
	for (int s = 0; s < t->n_switches; s++) {
		t->switches[s].nodes = malloc(sizeof(int) * (size_t)(count[s] ? count[s] : 1));
		if (!t->switches[s].nodes) {
			free(count);
			return -1;
		}
		t->switches[s].n_nodes = 0;
	}
	free(count);
	for (int n = 0; n < t->n_nodes; n++)
		for (int s = t->nodes[n].leaf; s != TB_NO_PARENT;
		     s = t->switches[s].parent)
			t->switches[s].nodes[t->switches[s].n_nodes++] = n;
	return 0;
}

static int build_leaf_tables(struct tb_topology *t)
{
	size_t nl;

	t->leaf_rank = malloc(sizeof(int) * (size_t)t->n_switches);
	t->leaves = malloc(sizeof(int) * (size_t)t->n_switches);
	if (!t->leaf_rank || !t->leaves)
		return -1;
	t->n_leaves = 0;
	t->n_levels = 0;
	for (int s = 0; s < t->n_switches; s++) {
		t->leaf_rank[s] = -1;
		if (t->switches[s].level + 1 > t->n_levels)
			t->n_levels = t->switches[s].level + 1;
		if (t->switches[s].level == 0) {
			t->leaf_rank[s] = t->n_leaves;
			t->leaves[t->n_leaves++] = s;
		}
	}
	nl = (size_t)t->n_leaves;
	t->lca_level = malloc((nl * nl) > 0 ? nl * nl : 1);
	if (!t->lca_level)
		return -1;
	for (size_t a = 0; a < nl; a++) {
		for (size_t b = 0; b < nl; b++) {
			int x = t->leaves[a], y = t->leaves[b], lvl;

			/* Walk the deeper side up until both meet. */
			while (x != y && x != TB_NO_PARENT && y != TB_NO_PARENT) {
				if (t->switches[x].level <= t->switches[y].level)
					x = t->switches[x].parent;
				else
					y = t->switches[y].parent;
			}
			lvl = (x == y && x != TB_NO_PARENT) ?
				t->switches[x].level : t->n_levels;
			t->lca_level[a * nl + b] = (unsigned char)lvl;
		}
	}
	return 0;
}

int tb_topology_finish(struct tb_topology *t, char *err, size_t errlen)
{
	if (t->n_nodes == 0 || t->n_switches == 0)
		return tb_err_set(err, errlen, "topology has no nodes or no switches%s",
			       NULL);
	if (resolve_parents(t, err, errlen))
		return -1;
	if (add_root_if_needed(t))
		return tb_err_set(err, errlen, "out of memory%s", NULL);
	if (assign_levels(t, err, errlen))
		return -1;
	if (fill_switch_nodes(t) || build_leaf_tables(t))
		return tb_err_set(err, errlen, "out of memory%s", NULL);
	return tb_topology_build_routers(t, err, errlen);
}

int tb_lca_level(const struct tb_topology *t, int a, int b)
{
	int la = t->leaf_rank[t->nodes[a].leaf];
	int lb = t->leaf_rank[t->nodes[b].leaf];

	return t->lca_level[(size_t)la * (size_t)t->n_leaves + (size_t)lb];
}

int tb_pair_distance(const struct tb_topology *t, int a, int b)
{
	return 2 * (tb_lca_level(t, a, b) + 1);
}
