/*
 * The policy registry (policy_registry.def): the policies, their families
 * and traits, and the one signature every policy function has. The
 * dispatcher (policy.h) and the Slurm plugin read it; a policy file
 * includes it for its own declaration.
 */
#ifndef TB_POLICY_REGISTRY_H
#define TB_POLICY_REGISTRY_H

#include <stddef.h>

#include "job.h"
#include "occupancy.h"
#include "options.h"
#include "status.h"
#include "topology.h"

/* Chooses job->nodes free nodes into alloc, in rank order: leaves in the
 * order the policy took them, nodes by index within a leaf. The caller
 * has checked the request (job->nodes from 1 to the machine's nodes). */
typedef enum tb_status tb_policy_fn(const struct tb_topology *t,
				    const struct tb_occupancy *o,
				    const struct tb_job *job,
				    const struct tb_options *opts, int *alloc);
/* The same, writing a one-line reason into why when the job waits. */
typedef enum tb_status tb_policy_why_fn(const struct tb_topology *t,
					const struct tb_occupancy *o,
					const struct tb_job *job,
					const struct tb_options *opts,
					int *alloc, char *why, size_t whylen);

enum tb_policy {
#define TB_POLICY(id, name, fn, why, family, traits, paper) TB_POLICY_##id,
#include "policy_registry.def"
#undef TB_POLICY
	TB_POLICY_COUNT
};

/* The policy functions, declared from the registry. */
#define TB_POLICY(id, name, fn, why, family, traits, paper) tb_policy_fn fn;
#include "policy_registry.def"
#undef TB_POLICY
/* policy_isolated.c: why a job waits (isolation.h has its options). */
tb_policy_why_fn tb_policy_isolated_why;

/* Where a policy comes from. */
enum tb_family {
	TB_FAMILY_SLURM,	/* Slurm's own selection, modelled */
	TB_FAMILY_ICPP,		/* ICPP-W 2020, communication-aware */
	TB_FAMILY_SC18,		/* SC18, interference-free */
	TB_FAMILY_TREEMATCH,	/* IJHPCA 2018, TreeMatch job mapping */
	TB_FAMILY_TOFA,		/* TOFA preprint, torus + faults */
	TB_FAMILY_NEDD,		/* CLUSTER 2021, network-data-driven */
	TB_FAMILY_COUNT
};

/* What the callers of a policy need to know about it. */
enum tb_trait {
	/* Places by the job's communication matrix (without one: as
	 * default); the Slurm plugin parses the matrix at every eval. */
	TB_TRAIT_MATRIX = 1 << 0,
	/* May refuse a job with enough free nodes (TB_EWAIT): the job
	 * waits rather than falling back to tree's choice. */
	TB_TRAIT_WAIT = 1 << 1,
	/* Has a core-level path in the Slurm plugin (partition cores). */
	TB_TRAIT_CORES = 1 << 2,
	/* Reads the named readings of the papers (options.h). */
	TB_TRAIT_OPTIONS = 1 << 3,
	/* Needs a torus machine (topology.h's torus; TB_EINVAL without). */
	TB_TRAIT_TORUS = 1 << 4,
};
#define TB_TRAIT_COUNT 5

struct tb_policy_info {
	const char *name;
	tb_policy_fn *fn;
	tb_policy_why_fn *why;		/* or NULL */
	enum tb_family family;
	unsigned traits;		/* enum tb_trait, or'ed */
	const char *paper;
};

/* The registry's line of p; NULL when p is not a policy. */
const struct tb_policy_info *tb_policy_info(enum tb_policy p);
/* The name of p, "?" when p is not a policy. */
const char *tb_policy_name(enum tb_policy p);
/* The policy of that name: 0, or -1 (unknown name, *out unchanged). */
int tb_policy_parse(const char *name, enum tb_policy *out);
/* Whether p has every trait of traits (0 when p is not a policy). */
int tb_policy_has(enum tb_policy p, unsigned traits);
/* "slurm", "icpp", "sc18", "treematch", "tofa", "nedd"; "?" for another
 * value. */
const char *tb_family_name(enum tb_family f);
/* "matrix", "wait", "cores", "options", "torus": the name of one trait bit; NULL
 * for another value. */
const char *tb_trait_name(enum tb_trait t);
/*
 * One line of the listing, without its newline: name, family, traits
 * (names joined by ',', or '-' for none) and paper, tab-separated. Returns
 * what snprintf returns (>= len: truncated), or -1 when p is not a policy.
 */
int tb_policy_format(enum tb_policy p, char *buf, size_t len);

#endif
