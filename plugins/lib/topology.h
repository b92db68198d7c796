/*
 * The machine as the policies see it: nodes under leaf switches under any
 * number of switch levels, plus the dragonfly (router, chassis, group) and
 * torus fields that later policies use. Switch level 0 is a leaf; the
 * papers number leaves 1, see tb_pair_distance().
 */
#ifndef TB_TOPOLOGY_H
#define TB_TOPOLOGY_H

#include <stddef.h>

#define TB_NO_PARENT (-1)
#define TB_TORUS_DIMS 5

struct tb_node {
	char *name;
	int cores;
	int leaf;		/* index of its leaf switch */
	int router;		/* dragonfly fields, -1 when unknown */
	int chassis;
	int group;
	int coord[TB_TORUS_DIMS];	/* torus coordinates, -1 when unknown */
};

/*
 * A dragonfly router and the nodes it connects (Aries: 4 nodes, NeDD L67,
 * L94), with its chassis and group for the observation models (nedd.h).
 * Built by tb_topology_finish from the nodes' router field (topology.json
 * of cori and theta, a scenario's `router` lines); on a machine without
 * that field (a fat tree, a `leaf` scenario) each leaf switch stands for a
 * router, so the router-level policies run on any machine. Routers are
 * ordered by id, which is how the NeDD strategies break ties.
 */
struct tb_router {
	char *name;		/* its leaf switch's name when that leaf holds
				 * exactly its nodes, else "rt<id>" */
	int id;			/* the nodes' router field, or the leaf's rank */
	int chassis;		/* the nodes' chassis field; for a leaf that
				 * stands for a router, its parent switch;
				 * -1 when unknown */
	int group;		/* -1 when unknown */
	int n_nodes;
	int *nodes;		/* node indexes, ascending */
};

struct tb_switch {
	char *name;
	int level;		/* 0 = leaf */
	int parent;		/* switch index or TB_NO_PARENT */
	int n_nodes;		/* all nodes below, in index order */
	int *nodes;
	char *parent_name;	/* builder only, resolved by finish() */
};

struct tb_topology {
	int n_nodes;
	struct tb_node *nodes;
	int n_switches;		/* in the order of topology.conf */
	struct tb_switch *switches;
	int n_levels;		/* switch levels */
	int n_leaves;
	int *leaves;		/* switch indexes of leaves, in switch order */
	int *leaf_rank;		/* switch index -> position in leaves, or -1 */
	unsigned char *lca_level; /* n_leaves^2: level of lowest common switch */
	/* Switch name -> index for tb_switch_find, so that loading n switches
	 * (each checked for a duplicate, each parent looked up) is not n^2
	 * string compares. Open addressing, at most half full; kept by
	 * tb_topology_add_switch, the only way switches are added. */
	int *switch_slots;	/* switch index, or -1 for an empty slot */
	int n_switch_slots;	/* 0 (no switch yet) or a power of two */
	/* A 3D torus (TOFA): dimensions X Y Z, all 0 when the machine is no
	 * torus; the node at (x, y, z) is torus_node[x + X*y + X*Y*z]. Set
	 * by tb_topology_set_torus from the nodes' coord[0..2]. */
	int torus[3];
	int *torus_node;
	/* Routers (struct tb_router), by id; set by tb_topology_finish. */
	int n_routers;
	struct tb_router *routers;
	int *router_of;		/* node index -> router index */
};

/* Reads the project's topology JSON (emulated-clusters/generate.py).
 * Returns 0, or -1 with a one-line reason in err. */
int tb_topology_load(const char *path, struct tb_topology **out,
		     char *err, size_t errlen);
int tb_topology_from_json_text(const char *text, size_t len,
			       struct tb_topology **out,
			       char *err, size_t errlen);

/*
 * Builder: add switches (parents before or after children, by name), then
 * nodes under leaves, then finish. A tree with several top switches gets one
 * root above them, as Slurm needs a single tree.
 */
struct tb_topology *tb_topology_new(void);
int tb_topology_add_switch(struct tb_topology *t, const char *name,
			   const char *parent_name);
int tb_topology_add_node(struct tb_topology *t, const char *name, int leaf,
			 int cores);
int tb_topology_finish(struct tb_topology *t, char *err, size_t errlen);

void tb_topology_free(struct tb_topology *t);

/* Makes t a 3D torus of x * y * z nodes (each at least 1): every node's
 * coord[0..2] must be set, in range, and no two alike. 0, or -1 with a
 * one-line reason in err (t unchanged). */
int tb_topology_set_torus(struct tb_topology *t, int x, int y, int z,
			  char *err, size_t errlen);
/* topology_routers.c: the router map, from the nodes' router, chassis and
 * group fields (all nodes have one or none). 0, or -1 with a reason in err
 * (a node without a router among nodes with one, a router whose nodes
 * disagree on chassis or group). Called by tb_topology_finish. */
int tb_topology_build_routers(struct tb_topology *t, char *err,
			      size_t errlen);
void tb_topology_free_routers(struct tb_topology *t);

/* Index of the switch of that name, or -1. */
int tb_switch_find(const struct tb_topology *t, const char *name);

/* Level (leaf = 0) of the lowest switch above both nodes. */
int tb_lca_level(const struct tb_topology *t, int node_a, int node_b);

/* The papers' distance: d(i,j) = 2 x level of the lowest common switch,
 * levels counted from 1 at the leaves (Eq. 4). */
int tb_pair_distance(const struct tb_topology *t, int node_a, int node_b);

#endif
