/*
 * Node allocation policies over a topology and an occupancy snapshot: the
 * dispatcher. The policies themselves, their names and traits are in the
 * registry (policy_registry.def, policy_registry.h).
 */
#ifndef TB_POLICY_H
#define TB_POLICY_H

#include "job.h"
#include "occupancy.h"
#include "options.h"
#include "policy_registry.h"
#include "status.h"
#include "topology.h"

/*
 * Chooses job->nodes free nodes. alloc receives node indexes in rank order:
 * leaves in the order the policy took them, nodes by index within a leaf.
 */
enum tb_status tb_allocate(enum tb_policy p, const struct tb_topology *t,
			   const struct tb_occupancy *o,
			   const struct tb_job *job, int *alloc);
/* The same under named readings of the paper (options.h); tb_allocate is
 * this with the paper's form. opts may be NULL for the paper's form. */
enum tb_status tb_allocate_with(enum tb_policy p, const struct tb_topology *t,
				const struct tb_occupancy *o,
				const struct tb_job *job,
				const struct tb_options *opts, int *alloc);
/* The policy whose cost is Eq. 7's Cost_Default under opts (NULL: the
 * paper's, default1905). */
enum tb_policy tb_denominator_policy(const struct tb_options *opts);
/* The rank order the ICPP-W authors' code costs p in (ranks=authors). */
enum tb_rank_order tb_authors_ranks(enum tb_policy p);
/* The same; on a refusal writes a one-line reason into why (if not NULL),
 * more precise than tb_status_str() where the policy knows more (its
 * registry line has a why function). */
enum tb_status tb_allocate_why(enum tb_policy p, const struct tb_topology *t,
			       const struct tb_occupancy *o,
			       const struct tb_job *job,
			       const struct tb_options *opts, int *alloc,
			       char *why, size_t whylen);

#endif
