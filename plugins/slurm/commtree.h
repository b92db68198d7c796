/*
 * topology/commtree: Slurm's own topology/tree (loaded from PluginDir and
 * called for everything it does) with the node choice replaced by the
 * policy library for communication-aware policies.
 */
#ifndef COMMTREE_H
#define COMMTREE_H

#include "src/interfaces/topology.h"

/* Tree's eval, for the glue's fall-back and for core accounting. */
typedef int (*commtree_tree_eval_t)(topology_eval_t *topo_eval);

/* Loads the topology JSON next to slurm.conf; logs and keeps going on
 * failure (every job then gets tree's choice). */
extern void commtree_load_topology(void);
extern void commtree_free_topology(void);

/* Chooses nodes by the configured policy, records the costs; falls back to
 * tree_eval whenever the library cannot decide. */
extern int commtree_eval(topology_eval_t *topo_eval,
			 commtree_tree_eval_t tree_eval);

#endif
