/*
 * NeDD, network-data-driven allocation (Zhang et al., CLUSTER 2021;
 * ../shared/papers/nedd.txt, line numbers "L.."): the application profile
 * table, the classifier, the observation models the testbed puts where
 * Cori had Aries counters, and the runtime model of the emulated jobs.
 * The strategies themselves are in policy_nedd.c (registry lines ltr,
 * htr, nedd, random, low-stall, fewer-router); their options in
 * nedd_options.h.
 *
 * Observations (ours: the testbed has no Aries counters):
 *
 *   T(r) = sum over jobs j of inj_j x |nodes of j on r| x (seconds of
 *          [now - W, now] that j ran) / W                    (L67-72, L104)
 *   S(r) = (g T(r) + (1 - g) x mean T of the other routers of r's chassis)
 *          x (1 + e), e uniform in [-noise, noise] by a seeded hash of the
 *          router id              (stall=chassis, ours; L94, L166-174)
 *   S(r) = L(r) x (1 + e), the same e, L(r) the traffic routed through r
 *          (stall=routed, ours; L94: "Ntiles ... contain traffic directed
 *          to/from either the Ptiles of this router or the Ntiles of some
 *          other routers"; L174: their traffic "always include[s]
 *          communications with some Ntiles in other routers"):
 *
 *   L(r) = sum over flows a -> b (a != b) whose route crosses r of the
 *          flow's volume. A job's node sends its injection x window share
 *          spread evenly over the job's other nodes (all-to-all; the paper
 *          gives no pattern), so the flow from router a to router b of job
 *          j is W_j(a) n_j(b) / (n_j - 1): W_j(a) the injection of j's
 *          nodes on a, n_j(b) j's nodes on b. Traffic between two nodes of
 *          one router stays in its Ptiles and counts nowhere. The route
 *          (Aries dragonfly, Cori and Theta: a group's routers in rows by
 *          chassis, all-to-all within a row by green links, and columns by
 *          slot, all-to-all within a column by black links) is minimal:
 *          a and b of one chassis or one slot, direct (a, b); else row
 *          then column, a -> (a's chassis, b's slot) -> b, the middle
 *          router carrying the flow as transit. Between groups a flow
 *          counts at a and b only: which routers hold the global links is
 *          not in the topology, and Cori's adaptive routing (L90) spreads
 *          them. A router's slot is its rank by id among its chassis'
 *          routers (cori and theta fill each chassis from its first slot:
 *          their Aries slot); a router of no group or no chassis (a leaf
 *          standing for a router) routes every flow as between groups.
 *
 * inj_j is the application's per-node injection (inj_<app>=, its Table I
 * share by default); for the congestor (gpcnet, L122) 80 % of its nodes
 * run the kernel (inj_kernel) and 20 % the canary (inj_canary), which
 * nodes by a seeded hash of their ids.
 */
#ifndef TB_NEDD_H
#define TB_NEDD_H

#include <stdint.h>

#include "job.h"
#include "nedd_options.h"
#include "options.h"
#include "policy_registry.h"
#include "topology.h"

/* --- the profile table (nedd_profile.c) -------------------------------- */

struct tb_nedd_app {
	const char *name;	/* as the paper spells it */
	double mpi_share;	/* f: Table I's "MPI Operation"; -1: no row */
	int congestor;		/* GPCNeT: injection by role (L122) */
};

/* Table I's six applications (L136-142) and gpcnet, by index. */
const struct tb_nedd_app *tb_nedd_app_at(int i);
/* The index of an application by name, case-insensitive; -1 if none. */
int tb_nedd_app_find(const char *name);

enum tb_nedd_class {
	TB_NEDD_UNPROFILED = 0,	/* no profile: nedd's default strategy */
	TB_NEDD_SENSITIVE = 1,
	TB_NEDD_INSENSITIVE = 2,
};
/* "unprofiled", "sensitive", "insensitive". */
const char *tb_nedd_class_name(enum tb_nedd_class c);
/* sensitive or insensitive: 0, else -1. */
int tb_nedd_class_parse(const char *s, enum tb_nedd_class *out);

/* What nedd does with a job (L76-82, L146). */
struct tb_nedd_choice {
	enum tb_nedd_class cls;
	enum tb_policy strategy;	/* ltr, htr or opts' unprofiled */
	double f;			/* the MPI share classified; -1: none */
	int given;			/* the class came with the job */
};
/* The job's class (job->net_class when given, else its application's f
 * against theta: sensitive iff f > theta) and the strategy for it. */
void tb_nedd_decide(const struct tb_job *job, const struct tb_options *o,
		    struct tb_nedd_choice *c);

/* --- observations (nedd_traffic.c) ------------------------------------- */

/* A job that runs, or ran, on the machine. */
struct tb_nedd_run {
	const int *nodes;	/* topology node indexes */
	int n;
	double inj;		/* per-node injection; < 0: by the app */
	char app[TB_JOB_APP_LEN];	/* "" : none (injection 0 unless inj) */
	double start;		/* seconds; -INFINITY: before any window */
	double end;		/* INFINITY: still running */
	uint64_t seed;		/* the congestor's kernel/canary draw */
};

/* 64-bit mixer (splitmix64's finaliser): the one hash behind every seeded
 * choice of the family. */
uint64_t tb_nedd_mix(uint64_t x);
/* Whether node k of run runs the congestor's kernel (else its canary):
 * the round(0.8 n) nodes of lowest hash(seed, node id). Writes n flags. */
int tb_nedd_congestor_roles(const struct tb_nedd_run *run,
			    unsigned char *kernel);
/* The per-node injection of a job that names no application, from its
 * profile text (profile.h, the job's comment): inj_unnamed x its
 * communication share; 0 when inj_unnamed is 0 (the default), or the text
 * is no profile with a share (no ':'). A background log's jobs inject so
 * (issue 24's loaded-machine layout; ours). */
double tb_nedd_unnamed_injection(const struct tb_nedd_options *o,
				 const char *profile);
/* T per router index (t->n_routers values) at time now over opts->window.
 * 0, or -1 when out of memory. */
int tb_nedd_traffic(const struct tb_topology *t,
		    const struct tb_nedd_run *runs, int n_runs, double now,
		    const struct tb_nedd_options *o, double *T);
/* S per router from T by the stall=chassis model; seed draws the noise.
 * 0, or -1 when out of memory. */
int tb_nedd_stall_model(const struct tb_topology *t, const double *T,
			const struct tb_nedd_options *o, uint64_t seed,
			double *S);
/* L per router (stall=routed, above) at time now over opts->window: the
 * same runs, injections and window shares as tb_nedd_traffic. 0, or -1
 * when out of memory. */
int tb_nedd_routed_load(const struct tb_topology *t,
			const struct tb_nedd_run *runs, int n_runs, double now,
			const struct tb_nedd_options *o, double *L);
/* S per router from L by the stall=routed model: L(r) (1 + e), e the
 * stall=chassis model's noise for the same seed and router. */
void tb_nedd_stall_routed(const struct tb_topology *t, const double *L,
			  const struct tb_nedd_options *o, uint64_t seed,
			  double *S);

/* --- the runtime model (nedd_runtime.c) -------------------------------- */

/* U and G of nodes alloc[0..n) under traffic T (per router); 0, or -1
 * when out of memory. */
int tb_nedd_pressure(const struct tb_topology *t, const double *T,
		     const int *alloc, int n, double *U, double *G);
/* The application's hidden sensitivity sigma (0 for none). */
double tb_nedd_sigma(const char *app);
/* T / T0 = 1 + sigma (a G + b U). */
double tb_nedd_runtime_factor(const char *app, double U, double G);
/* The emulated job's runtime: t0 x the factor above x (1 + e), e uniform
 * in [-jitter, jitter] drawn from the job's seed (the No-Congestor band;
 * jitter= option). */
double tb_nedd_runtime(double t0, const char *app, double U, double G,
		       double jitter, uint64_t seed);

#endif
