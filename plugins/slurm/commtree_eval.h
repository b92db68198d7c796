/* What commtree_eval.c takes from commtree_input.c, commtree_state.c,
 * commtree_cores.c, commtree_record.c, commtree_nedd.c and
 * commtree_tofa.c. */
#ifndef COMMTREE_EVAL_H
#define COMMTREE_EVAL_H

#include "commtree.h"
#include "../lib/cost.h"
#include "../lib/matrix.h"
#include "../lib/occupancy.h"
#include "../lib/options.h"
#include "../lib/policy.h"
#include "../lib/profile.h"

/* --- a decision's inputs (commtree_input.c) ---------------------------- */

extern enum tb_policy commtree_policy(void);
extern struct tb_options commtree_options(void);
extern const char *commtree_job_profile(job_record_t *job_ptr,
					struct tb_profile *prof, bool quiet);
extern const char *commtree_job_matrix(job_record_t *job_ptr,
				       struct tb_matrix **out, bool need);
extern bool commtree_job_comm(job_record_t *job_ptr);
/* commtree_outage.c: the outage file's pf per topology node (a malloc'd
 * copy for the snapshot), or NULL when every pf is 0. */
extern double *commtree_outage_pf(const struct tb_topology *topo);
extern void commtree_outage_free(void);
/* NAME=value of the job's SPANK environment, or NULL. */
extern const char *commtree_spank_value(job_record_t *job_ptr,
					const char *name);

/* --- the state tree's eval changes (commtree_state.c) ------------------- */

/*
 * What tree's eval changes besides node_map (topology.h marks them
 * UPDATED): the job's CPU count and, per usable node, its core bitmap and
 * available resources. Saved before our narrowed try so that, when tree
 * refuses it, tree decides on exactly the state it was given.
 */
struct eval_state {
	bitstr_t *node_map;
	uint16_t avail_cpus;
	uint32_t max_nodes;	/* tree's eval counts it down per node */
	bool gres_per_job;
	int n;			/* nodes saved */
	int *index;
	bitstr_t **core;
	avail_res_t *res;
	uint16_t **cores_per_sock;
};

extern bool commtree_save_state(topology_eval_t *te, struct eval_state *st);
extern void commtree_restore_state(topology_eval_t *te,
				   struct eval_state *st);
extern void commtree_free_state(struct eval_state *st);

/* The model the glue keeps: the topology and both index maps. */
struct commtree_model {
	const struct tb_topology *topo;
	const int *slurm_of;	/* topology node -> Slurm node, or -1 */
	const int *topo_of;	/* Slurm node -> topology node, or -1 */
	int topo_of_count;
};

/* commtree_cores.c: core-level TreeMatch (IJHPCA 2018, CR_Core). */
extern bool commtree_core_level(topology_eval_t *te, enum tb_policy policy,
				const struct tb_matrix *m);
extern int commtree_eval_cores(const struct commtree_model *md,
			       topology_eval_t *te,
			       commtree_tree_eval_t tree_eval,
			       enum tb_policy policy,
			       struct tb_occupancy *occ,
			       const struct tb_matrix *m,
			       const struct tb_profile *prof, bool record);

/* --- a placed job's record (commtree_record.c) ------------------------ */

/* The record's runtime fields (runtime_base, runtime_scaled and, when the
 * model could not apply, runtime_fallback), one writer for the node- and
 * core-level records. */
extern void commtree_record_runtime(char **text,
				    const struct tb_profile *prof,
				    double scaled,
				    enum tb_runtime_fallback why);

/* Costs of every policy on the snapshot occ, the cost of the nodes Slurm
 * gave (node_map), the scaled runtime and the rank order, written where
 * sacct (AdminComment) and the batch script (environment) find them. */
extern void commtree_record(const struct commtree_model *md,
			    job_record_t *job_ptr, enum tb_policy policy,
			    const struct tb_occupancy *occ,
			    const struct tb_job *job,
			    const struct tb_profile *prof,
			    const struct tb_matrix *matrix,
			    const char *fallback, bitstr_t *node_map,
			    const struct tb_options *opts);

/* --- NeDD (commtree_nedd.c) --------------------------------------------- */

struct tb_job;
/* T per router into occ (router_traffic) from slurmctld's job records:
 * every running job and every one that ended inside the window, with its
 * application (--comm-app) and nodes; under stall=routed the routed load
 * L too (router_routed). Logs and leaves occ without traffic (or L)
 * when out of memory. */
extern void commtree_nedd_observe(const struct commtree_model *md,
				  struct tb_occupancy *occ,
				  const struct tb_options *opts);
/* A job's application: its --comm-app, else the comment's fifth field
 * (profile.h), else NULL. */
extern const char *commtree_nedd_app(job_record_t *job_ptr, char *buf,
				     size_t len);
/* The job's application and seed (a hash of the configured seed= and the
 * job id). */
extern void commtree_nedd_job(job_record_t *job_ptr,
			      const struct tb_options *opts,
			      struct tb_job *job);
/* The NeDD runtime model (nedd.h, tb_nedd_runtime) of a job that names an
 * application of the profile table and has a base runtime t0, on nodes
 * alloc[0..n) under occ's traffic: true with *scaled set, else false
 * (*scaled unchanged). */
extern bool commtree_nedd_runtime(const struct commtree_model *md,
				  const struct tb_occupancy *occ,
				  const struct tb_job *job,
				  const struct tb_options *opts,
				  const int *alloc, int n, double t0,
				  double *scaled);
/* The NeDD fields of the record for nodes alloc[0..n): strategy, class,
 * application, seed, the chosen routers' T, U, G and the runtime factor. */
extern void commtree_nedd_record(char **text, enum tb_policy policy,
				 const struct commtree_model *md,
				 const struct tb_occupancy *occ,
				 const struct tb_job *job,
				 const struct tb_options *opts,
				 const int *alloc, int n);

/* --- TOFA (commtree_tofa.c) --------------------------------------------- */

struct tb_matrix;
/* On a torus, the record's TOFA fields into *text for the ranks as they
 * run (rank_nodes: the policy's map when Slurm gave its nodes, else NULL:
 * Slurm's nodes in index order); *hops (the runtime model's C) and *c0
 * (default's on the empty torus), NaN when missing. */
extern void commtree_tofa_record(const struct commtree_model *md,
				 job_record_t *job_ptr, char **text,
				 enum tb_policy policy,
				 const struct tb_options *opts,
				 const struct tb_occupancy *occ,
				 const struct tb_job *job,
				 const struct tb_matrix *matrix,
				 bitstr_t *node_map, const int *rank_nodes,
				 double *hops, double *c0);

#endif
