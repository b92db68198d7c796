/*
 * The NeDD family's named options (nedd.h), carried in struct tb_options
 * as `nedd` and given in the same text form (options.h: a scenario's
 * `options` line, tb-alloc --options, TopologyParam key=value words):
 *
 *   theta=0.30          the MPI-time share above which an application is
 *                       network-sensitive (L146: "above 19.3%"; any theta
 *                       in [0.193, 0.482) classifies Table I as printed)
 *   unprofiled=fewer-router
 *                       the strategy `nedd` uses for an application with
 *                       no profile (L82 says "a default allocation
 *                       strategy", not which): ltr, htr, random, low-stall
 *                       or fewer-router
 *   window=120          the traffic window W in seconds (L72, L104: "the
 *                       last two minutes")
 *   stall_g=0.5         the share of a router's own traffic in its stall
 *                       count (ours; L94, L166-174: Ntile stalls include
 *                       transit traffic); the rest is the mean traffic of
 *                       the other routers of its chassis
 *   stall_noise=0.2     the stall count's relative noise: a seeded uniform
 *                       factor in [1 - x, 1 + x], 0 <= x < 1 (ours)
 *   stall=chassis       the stall model (ours, both; L94, L166-174):
 *                       chassis, the default, is stall_g's blend above;
 *                       routed counts the traffic routed through the
 *                       router (its own nodes' sent and received traffic
 *                       and the transit of other routers' flows over
 *                       minimal Aries routes, nedd.h), with the same
 *                       noise; stall_g does not enter it
 *   jitter=0.02         the runtime model's relative noise (ours; the
 *                       issue's "small seeded jitter" that gives
 *                       No-Congestor its band): a job's runtime is
 *                       multiplied by a seeded uniform factor in
 *                       [1 - x, 1 + x], 0 <= x < 1
 *   inj_kernel=1 inj_canary=0.1
 *                       the congestor's per-node injection on its kernel
 *                       nodes (80 %, L122) and on its canary nodes (20 %)
 *   inj_<app>=<x>       an application's per-node injection (ours: its MPI
 *                       share f of Table I), e.g. inj_minimd=0.689
 *   inj_unnamed=0       a job naming no application (a replayed background
 *                       log's, issue 24's loaded-machine layout) injects
 *                       this times its profile's communication share per
 *                       node (the comment's <percent> / 100, as an
 *                       application injects its share f); 0, the default,
 *                       keeps such a job silent (ours; the paper's
 *                       production traffic came from Cori's other users,
 *                       L90, L102, whose counters we do not have)
 *   seed=0              the configured seed: inside Slurm a job's seed (of
 *                       random, the stall noise and a congestor's roles)
 *                       is a hash of it and the job id
 *
 * Every one of these is a choice of ours where the paper is silent, except
 * theta's range and W; docs/readings.md lists them.
 */
#ifndef TB_NEDD_OPTIONS_H
#define TB_NEDD_OPTIONS_H

#include <stddef.h>

/* Table I's six applications and the congestor (nedd_profile.c). */
#define TB_NEDD_APPS 7

/* stall= (nedd.h): the stall count S from the chassis blend of T, or from
 * the traffic routed through the router. */
enum tb_nedd_stall {
	TB_NEDD_STALL_CHASSIS = 0,
	TB_NEDD_STALL_ROUTED = 1,
};

struct tb_nedd_options {
	double theta;
	int unprofiled;			/* an enum tb_policy of the family */
	double window;
	double stall_g;
	double stall_noise;
	int stall;			/* enum tb_nedd_stall */
	double jitter;
	double inj_kernel;
	double inj_canary;
	double inj[TB_NEDD_APPS];	/* by the profile table's index */
	double inj_unnamed;		/* x a no-application job's share */
	unsigned long long seed;
};

/* The defaults above. */
void tb_nedd_options_default(struct tb_nedd_options *o);
/* One word key=value of n characters: 0 when it is a NeDD option and set,
 * -1 with a reason in err when it is one with a bad value, 1 when the key
 * is not a NeDD option (o unchanged). */
int tb_nedd_option_word(struct tb_nedd_options *o, const char *w, size_t n,
			char *err, size_t errlen);
/* "theta=0.3 unprofiled=fewer-router window=120 stall_g=0.5
 * stall_noise=0.2 jitter=0.02 inj_kernel=1 inj_canary=0.1 seed=0" (inj_<app>
 * words only where they differ from f, inj_unnamed only when not 0,
 * stall only when routed);
 * returns what snprintf returns. */
int tb_nedd_options_format(const struct tb_nedd_options *o, char *buf,
			   size_t len);

#endif
