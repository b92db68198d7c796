#include "options.h"

#include <stdio.h>
#include <string.h>

/* One row per key, its values in enum order (0, 1, and 2 for ranks). */
#define MAX_VALUES 3
struct option_key {
	const char *key;
	const char *values[MAX_VALUES];
};

enum {
	KEY_EQ3, KEY_RATIO, KEY_FIT, KEY_SPLIT, KEY_DENOMINATOR, KEY_RANKS,
	KEY_ADAPTIVE_TIE, KEY_MAPPER, KEY_PENALTY, KEY_FALLBACK, KEY_SCOTCH0,
	KEY_SCOTCH_ARCH, KEY_SCOTCH_STRAT, KEY_EXPOSURE,
	N_KEYS
};
static const struct option_key keys[N_KEYS] = {
	[KEY_EQ3] = { "eq3", { "pair", "path" } },
	[KEY_RATIO] = { "ratio", { "eq1", "share" } },
	[KEY_FIT] = { "fit", { "bestfit", "quiet" } },
	[KEY_SPLIT] = { "split", { "halve", "pow2" } },
	[KEY_DENOMINATOR] = { "denominator", { "default1905", "default" } },
	[KEY_RANKS] = { "ranks", { "taken", "index", "authors" } },
	[KEY_ADAPTIVE_TIE] = { "adaptive_tie", { "balanced", "greedy" } },
	[KEY_MAPPER] = { "mapper", { "scotch", "exact" } },
	[KEY_PENALTY] = { "penalty", { "101", "100" } },
	[KEY_FALLBACK] = { "fallback", { "all", "window" } },
	[KEY_SCOTCH0] = { "scotch0", { "window", "machine" } },
	[KEY_SCOTCH_ARCH] = { "scotch_arch", { "build0", "build2" } },
	[KEY_SCOTCH_STRAT] = { "scotch_strat", { "quality", "default" } },
	[KEY_EXPOSURE] = { "exposure", { "routes", "own" } },
};

static int get(const struct tb_options *o, int key)
{
	switch (key) {
	case KEY_EQ3: return o->eq3 == TB_EQ3_PATH;
	case KEY_RATIO: return o->ratio == TB_RATIO_SHARE;
	case KEY_FIT: return o->fit == TB_FITRULE_QUIET;
	case KEY_SPLIT: return o->split == TB_SPLIT_POW2;
	case KEY_DENOMINATOR: return o->denominator == TB_DENOM_DEFAULT;
	case KEY_ADAPTIVE_TIE: return o->adaptive_tie == TB_TIE_GREEDY;
	case KEY_MAPPER: return o->mapper == TB_MAPPER_EXACT;
	case KEY_PENALTY: return o->penalty == TB_PENALTY_100;
	case KEY_FALLBACK: return o->fallback == TB_FALLBACK_WINDOW;
	case KEY_SCOTCH0: return o->scotch0 == TB_SCOTCH0_MACHINE;
	case KEY_SCOTCH_ARCH: return o->scotch_arch == TB_SCOTCH_ARCH_BUILD2;
	case KEY_SCOTCH_STRAT: return o->scotch_strat == TB_SCOTCH_STRAT_DEFAULT;
	case KEY_EXPOSURE: return o->exposure == TB_EXPOSURE_OWN;
	default: return (int)o->ranks;
	}
}

static void set(struct tb_options *o, int key, int v)
{
	switch (key) {
	case KEY_EQ3:
		o->eq3 = v ? TB_EQ3_PATH : TB_EQ3_PAIR;
		break;
	case KEY_RATIO:
		o->ratio = v ? TB_RATIO_SHARE : TB_RATIO_EQ1;
		break;
	case KEY_FIT:
		o->fit = v ? TB_FITRULE_QUIET : TB_FITRULE_BESTFIT;
		break;
	case KEY_SPLIT:
		o->split = v ? TB_SPLIT_POW2 : TB_SPLIT_HALVE;
		break;
	case KEY_DENOMINATOR:
		o->denominator = v ? TB_DENOM_DEFAULT : TB_DENOM_DEFAULT1905;
		break;
	case KEY_ADAPTIVE_TIE:
		o->adaptive_tie = v ? TB_TIE_GREEDY : TB_TIE_BALANCED;
		break;
	case KEY_MAPPER:
		o->mapper = v ? TB_MAPPER_EXACT : TB_MAPPER_SCOTCH;
		break;
	case KEY_PENALTY:
		o->penalty = v ? TB_PENALTY_100 : TB_PENALTY_101;
		break;
	case KEY_FALLBACK:
		o->fallback = v ? TB_FALLBACK_WINDOW : TB_FALLBACK_ALL;
		break;
	case KEY_SCOTCH0:
		o->scotch0 = v ? TB_SCOTCH0_MACHINE : TB_SCOTCH0_WINDOW;
		break;
	case KEY_SCOTCH_ARCH:
		o->scotch_arch = v ? TB_SCOTCH_ARCH_BUILD2 :
				     TB_SCOTCH_ARCH_BUILD0;
		break;
	case KEY_SCOTCH_STRAT:
		o->scotch_strat = v ? TB_SCOTCH_STRAT_DEFAULT :
				      TB_SCOTCH_STRAT_QUALITY;
		break;
	case KEY_EXPOSURE:
		o->exposure = v ? TB_EXPOSURE_OWN : TB_EXPOSURE_ROUTES;
		break;
	default:
		o->ranks = v == 2 ? TB_RANKS_AUTHORS :
			   v ? TB_RANKS_INDEX : TB_RANKS_TAKEN;
		break;
	}
}

struct tb_options tb_options_default(void)
{
	struct tb_options o = {
		.eq3 = TB_EQ3_PAIR,
		.ratio = TB_RATIO_EQ1,
		.fit = TB_FITRULE_BESTFIT,
		.split = TB_SPLIT_HALVE,
		.denominator = TB_DENOM_DEFAULT1905,
		.ranks = TB_RANKS_TAKEN,
		.adaptive_tie = TB_TIE_BALANCED,
		.mapper = TB_MAPPER_SCOTCH,
		.penalty = TB_PENALTY_101,
		.fallback = TB_FALLBACK_ALL,
		.scotch0 = TB_SCOTCH0_WINDOW,
		.scotch_arch = TB_SCOTCH_ARCH_BUILD0,
		.scotch_strat = TB_SCOTCH_STRAT_QUALITY,
		.exposure = TB_EXPOSURE_ROUTES,
	};

	tb_nedd_options_default(&o.nedd);
	return o;
}

static int set_word(struct tb_options *o, const char *w, size_t n, char *err,
		    size_t errlen)
{
	const char *eq = memchr(w, '=', n);
	size_t kn = eq ? (size_t)(eq - w) : n;
	int nedd = tb_nedd_option_word(&o->nedd, w, n, err, errlen);

	if (nedd <= 0)
		return nedd;

	for (int i = 0; eq && i < N_KEYS; i++) {
		const struct option_key *k = &keys[i];
		size_t vn = n - kn - 1;

		if (strlen(k->key) != kn || strncmp(k->key, w, kn))
			continue;
		for (int v = 0; v < MAX_VALUES && k->values[v]; v++) {
			if (strlen(k->values[v]) == vn &&
			    !strncmp(k->values[v], eq + 1, vn)) {
				set(o, i, v);
				return 0;
			}
		}
		if (err && errlen)
			snprintf(err, errlen,
				 "%s: expected %s%s%s or %s, got '%.*s'", k->key,
				 k->values[0], k->values[2] ? ", " : "",
				 k->values[2] ? k->values[1] : "",
				 k->values[2] ? k->values[2] : k->values[1],
				 (int)vn, eq + 1);
		return -1;
	}
	if (err && errlen) {
		/* The keys from the table, then NeDD's (nedd_profile.c). */
		char names[256];
		size_t used = 0;

		names[0] = '\0';
		for (int i = 0; i < N_KEYS && used < sizeof(names); i++) {
			int k = snprintf(names + used, sizeof(names) - used,
					 "%s, ", keys[i].key);
			if (k < 0)
				break;
			used += (size_t)k;
		}
		snprintf(err, errlen, "unknown option '%.*s' (%sNeDD's theta, "
			 "unprofiled, window, stall_g, stall_noise, stall, "
			 "jitter, seed, inj_*; key=value)", (int)n, w, names);
	}
	return -1;
}

int tb_options_parse(const char *text, struct tb_options *o, char *err,
		     size_t errlen)
{
	struct tb_options next = *o;
	const char *sep = " \t,";

	for (const char *p = text; *p;) {
		size_t n;

		p += strspn(p, sep);
		n = strcspn(p, sep);
		if (!n)
			break;
		if (set_word(&next, p, n, err, errlen))
			return -1;
		p += n;
	}
	*o = next;
	return 0;
}

int tb_options_format(const struct tb_options *o, char *buf, size_t len)
{
	size_t used = 0;

	for (int i = 0; i < N_KEYS; i++) {
		int n = snprintf(used < len ? buf + used : NULL,
				 used < len ? len - used : 0,
				 "%s%s=%s", i ? " " : "", keys[i].key,
				 keys[i].values[get(o, i)]);
		if (n < 0)
			return n;
		used += (size_t)n;
	}
	return (int)used;
}

int tb_options_words_format(char *buf, size_t len)
{
	size_t used = 0;

	for (int i = 0; i < N_KEYS; i++) {
		for (int v = -1; v < MAX_VALUES; v++) {
			int n;

			if (v >= 0 && !keys[i].values[v])
				break;
			/* v -1: " key=", then each value, "|" between. */
			n = snprintf(used < len ? buf + used : NULL,
				     used < len ? len - used : 0, "%s%s%s",
				     v < 0 ? (i ? " " : "") : (v ? "|" : ""),
				     v < 0 ? keys[i].key : keys[i].values[v],
				     v < 0 ? "=" : "");
			if (n < 0)
				return n;
			used += (size_t)n;
		}
	}
	return (int)used;
}
