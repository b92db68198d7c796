/*
 * NeDD's application profiles (Table I, L132-142), the classifier (L74,
 * L146) and the family's named options (nedd_options.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nedd.h"

/* Table I's "MPI Operation" column, in the paper's row order; gpcnet has
 * no row (it is the congestor the experiments place, L104, L122): `nedd`
 * treats it as unprofiled. */
static const struct tb_nedd_app apps[TB_NEDD_APPS] = {
	{ "miniMD", 0.689, 0 },
	{ "LAMMPS", 0.515, 0 },
	{ "MILC", 0.482, 0 },
	{ "HACC", 0.497, 0 },
	{ "QMCPACK", 0.193, 0 },
	{ "HPCG", 0.115, 0 },
	{ "gpcnet", -1, 1 },
};

const struct tb_nedd_app *tb_nedd_app_at(int i)
{
	return i >= 0 && i < TB_NEDD_APPS ? &apps[i] : NULL;
}

static int same_name(const char *a, const char *b, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (tolower((unsigned char)a[k]) != tolower((unsigned char)b[k]))
			return 0;
	return b[n] == '\0';
}

static int find_n(const char *name, size_t n)
{
	for (int i = 0; i < TB_NEDD_APPS; i++)
		if (strlen(apps[i].name) == n && same_name(name, apps[i].name, n))
			return i;
	return -1;
}

int tb_nedd_app_find(const char *name)
{
	return name ? find_n(name, strlen(name)) : -1;
}

const char *tb_nedd_class_name(enum tb_nedd_class c)
{
	switch (c) {
	case TB_NEDD_SENSITIVE:
		return "sensitive";
	case TB_NEDD_INSENSITIVE:
		return "insensitive";
	default:
		return "unprofiled";
	}
}

int tb_nedd_class_parse(const char *s, enum tb_nedd_class *out)
{
	if (!strcmp(s, "sensitive"))
		*out = TB_NEDD_SENSITIVE;
	else if (!strcmp(s, "insensitive"))
		*out = TB_NEDD_INSENSITIVE;
	else
		return -1;
	return 0;
}

void tb_nedd_decide(const struct tb_job *job, const struct tb_options *o,
		    struct tb_nedd_choice *c)
{
	int app = tb_nedd_app_find(job->app);

	c->f = app >= 0 ? apps[app].mpi_share : -1;
	c->given = job->net_class == TB_NEDD_SENSITIVE ||
		   job->net_class == TB_NEDD_INSENSITIVE;
	if (c->given)
		c->cls = (enum tb_nedd_class)job->net_class;
	else if (c->f >= 0)
		/* L146: sensitive above the threshold. */
		c->cls = c->f > o->nedd.theta ? TB_NEDD_SENSITIVE :
						TB_NEDD_INSENSITIVE;
	else
		c->cls = TB_NEDD_UNPROFILED;
	/* L76: low traffic for the sensitive, high for the insensitive;
	 * L82: an unprofiled application gets a default strategy. */
	if (c->cls == TB_NEDD_SENSITIVE)
		c->strategy = TB_POLICY_LTR;
	else if (c->cls == TB_NEDD_INSENSITIVE)
		c->strategy = TB_POLICY_HTR;
	else
		c->strategy = (enum tb_policy)o->nedd.unprofiled;
}

/* --- options ------------------------------------------------------------ */

void tb_nedd_options_default(struct tb_nedd_options *o)
{
	o->theta = 0.30;
	o->unprofiled = TB_POLICY_FEWER_ROUTER;
	o->window = 120;
	o->stall_g = 0.5;
	o->stall_noise = 0.2;
	o->stall = TB_NEDD_STALL_CHASSIS;
	o->jitter = 0.02;
	o->inj_kernel = 1.0;
	o->inj_canary = 0.1;
	o->seed = 0;
	o->inj_unnamed = 0;
	for (int i = 0; i < TB_NEDD_APPS; i++)
		o->inj[i] = apps[i].mpi_share > 0 ? apps[i].mpi_share : 0;
}

/* The strategies unprofiled= may name: the family's router strategies. */
static const enum tb_policy strategies[] = {
	TB_POLICY_LTR, TB_POLICY_HTR, TB_POLICY_RANDOM, TB_POLICY_LOW_STALL,
	TB_POLICY_FEWER_ROUTER,
};

static int number(const char *v, size_t vn, double lo, double hi,
		  int hi_open, double *out)
{
	char buf[48], *end;
	double x;

	if (!vn || vn >= sizeof(buf))
		return -1;
	memcpy(buf, v, vn);
	buf[vn] = '\0';
	errno = 0;
	x = strtod(buf, &end);
	if (errno || *end || !isfinite(x) || x < lo || x > hi ||
	    (hi_open && x >= hi))
		return -1;
	*out = x;
	return 0;
}

static int bad(char *err, size_t errlen, const char *w, size_t n,
	       const char *expected)
{
	if (err && errlen)
		snprintf(err, errlen, "%.*s: expected %s", (int)n, w, expected);
	return -1;
}

int tb_nedd_option_word(struct tb_nedd_options *o, const char *w, size_t n,
			char *err, size_t errlen)
{
	const char *eq = memchr(w, '=', n), *v;
	size_t kn, vn;

	if (!eq)
		return 1;
	kn = (size_t)(eq - w);
	v = eq + 1;
	vn = n - kn - 1;
#define KEY(k) (kn == strlen(k) && !strncmp(w, k, kn))
	if (KEY("theta"))
		return number(v, vn, 0, 1, 1, &o->theta) ?
		       bad(err, errlen, w, n, "theta=<share>, 0 <= share < 1") : 0;
	if (KEY("window"))
		return number(v, vn, 1, 86400, 0, &o->window) ?
		       bad(err, errlen, w, n, "window=<seconds>, 1-86400") : 0;
	if (KEY("stall_g"))
		return number(v, vn, 0, 1, 0, &o->stall_g) ?
		       bad(err, errlen, w, n, "stall_g=<share>, 0-1") : 0;
	if (KEY("stall_noise"))
		return number(v, vn, 0, 1, 1, &o->stall_noise) ?
		       bad(err, errlen, w, n, "stall_noise=<x>, 0 <= x < 1") : 0;
	if (KEY("jitter"))
		return number(v, vn, 0, 1, 1, &o->jitter) ?
		       bad(err, errlen, w, n, "jitter=<x>, 0 <= x < 1") : 0;
	if (KEY("inj_kernel"))
		return number(v, vn, 0, 1e12, 0, &o->inj_kernel) ?
		       bad(err, errlen, w, n, "inj_kernel=<injection>, >= 0") : 0;
	if (KEY("inj_canary"))
		return number(v, vn, 0, 1e12, 0, &o->inj_canary) ?
		       bad(err, errlen, w, n, "inj_canary=<injection>, >= 0") : 0;
	if (KEY("inj_unnamed"))
		return number(v, vn, 0, 1e12, 0, &o->inj_unnamed) ?
		       bad(err, errlen, w, n, "inj_unnamed=<factor>, >= 0") : 0;
	if (KEY("seed")) {
		char buf[32], *end;

		if (!vn || vn >= sizeof(buf) || *v == '-')
			return bad(err, errlen, w, n, "seed=<n>, 0 to 2^64-1");
		memcpy(buf, v, vn);
		buf[vn] = '\0';
		errno = 0;
		o->seed = strtoull(buf, &end, 10);
		return errno || *end ?
		       bad(err, errlen, w, n, "seed=<n>, 0 to 2^64-1") : 0;
	}
	if (KEY("stall")) {
		if (vn == 7 && !strncmp(v, "chassis", 7))
			o->stall = TB_NEDD_STALL_CHASSIS;
		else if (vn == 6 && !strncmp(v, "routed", 6))
			o->stall = TB_NEDD_STALL_ROUTED;
		else
			return bad(err, errlen, w, n, "stall=chassis or routed");
		return 0;
	}
	if (KEY("unprofiled")) {
		for (size_t i = 0; i < sizeof(strategies) / sizeof(*strategies);
		     i++) {
			const char *name = tb_policy_name(strategies[i]);

			if (strlen(name) == vn && !strncmp(name, v, vn)) {
				o->unprofiled = strategies[i];
				return 0;
			}
		}
		return bad(err, errlen, w, n, "unprofiled=ltr, htr, random, "
			   "low-stall or fewer-router");
	}
#undef KEY
	if (kn > 4 && !strncmp(w, "inj_", 4)) {
		int app = find_n(w + 4, kn - 4);

		if (app < 0 || apps[app].congestor)
			return bad(err, errlen, w, n, "inj_<app> of an "
				   "application of Table I (miniMD, LAMMPS, "
				   "MILC, HACC, QMCPACK, HPCG)");
		return number(v, vn, 0, 1e12, 0, &o->inj[app]) ?
		       bad(err, errlen, w, n, "inj_<app>=<injection>, >= 0") : 0;
	}
	return 1;
}

int tb_nedd_options_format(const struct tb_nedd_options *o, char *buf,
			   size_t len)
{
	size_t used;
	int n = snprintf(buf, len, "theta=%g unprofiled=%s window=%g "
			 "stall_g=%g stall_noise=%g jitter=%g inj_kernel=%g "
			 "inj_canary=%g seed=%llu", o->theta,
			 tb_policy_name((enum tb_policy)o->unprofiled),
			 o->window, o->stall_g, o->stall_noise, o->jitter,
			 o->inj_kernel,
			 o->inj_canary, o->seed);

	if (n < 0)
		return n;
	used = (size_t)n;
	for (int i = 0; i < TB_NEDD_APPS; i++) {
		if (apps[i].congestor || o->inj[i] == apps[i].mpi_share)
			continue;
		n = snprintf(used < len ? buf + used : NULL,
			     used < len ? len - used : 0, " inj_%s=%g",
			     apps[i].name, o->inj[i]);
		if (n < 0)
			return n;
		used += (size_t)n;
	}
	if (o->stall == TB_NEDD_STALL_ROUTED) {
		n = snprintf(used < len ? buf + used : NULL,
			     used < len ? len - used : 0, " stall=routed");
		if (n < 0)
			return n;
		used += (size_t)n;
	}
	if (o->inj_unnamed != 0) {
		n = snprintf(used < len ? buf + used : NULL,
			     used < len ? len - used : 0, " inj_unnamed=%g",
			     o->inj_unnamed);
		if (n < 0)
			return n;
		used += (size_t)n;
	}
	return (int)used;
}
