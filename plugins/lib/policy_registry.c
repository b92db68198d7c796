#include "policy_registry.h"

#include <stdio.h>
#include <string.h>

static const struct tb_policy_info registry[TB_POLICY_COUNT] = {
#define TB_POLICY(id, nm, f, w, fam, tr, pp) \
	[TB_POLICY_##id] = { .name = nm, .fn = f, .why = w, .family = fam, \
			     .traits = tr, .paper = pp },
#include "policy_registry.def"
#undef TB_POLICY
};

static const char *const family_names[TB_FAMILY_COUNT] = {
	[TB_FAMILY_SLURM] = "slurm",
	[TB_FAMILY_ICPP] = "icpp",
	[TB_FAMILY_SC18] = "sc18",
	[TB_FAMILY_TREEMATCH] = "treematch",
	[TB_FAMILY_TOFA] = "tofa",
	[TB_FAMILY_NEDD] = "nedd",
};

static const char *const trait_names[TB_TRAIT_COUNT] = {
	"matrix", "wait", "cores", "options", "torus",
};

const struct tb_policy_info *tb_policy_info(enum tb_policy p)
{
	return ((int)p >= 0 && p < TB_POLICY_COUNT) ? &registry[p] : NULL;
}

const char *tb_policy_name(enum tb_policy p)
{
	const struct tb_policy_info *pi = tb_policy_info(p);

	return pi ? pi->name : "?";
}

int tb_policy_parse(const char *name, enum tb_policy *out)
{
	for (int p = 0; p < TB_POLICY_COUNT; p++) {
		if (!strcmp(name, registry[p].name)) {
			*out = (enum tb_policy)p;
			return 0;
		}
	}
	return -1;
}

int tb_policy_has(enum tb_policy p, unsigned traits)
{
	const struct tb_policy_info *pi = tb_policy_info(p);

	return pi && (pi->traits & traits) == traits;
}

const char *tb_family_name(enum tb_family f)
{
	return ((int)f >= 0 && f < TB_FAMILY_COUNT) ? family_names[f] : "?";
}

const char *tb_trait_name(enum tb_trait t)
{
	for (int k = 0; k < TB_TRAIT_COUNT; k++)
		if ((unsigned)t == 1u << k)
			return trait_names[k];
	return NULL;
}

int tb_policy_format(enum tb_policy p, char *buf, size_t len)
{
	const struct tb_policy_info *pi = tb_policy_info(p);
	char traits[64] = "-";
	size_t used = 0;

	if (!pi)
		return -1;
	for (int k = 0; k < TB_TRAIT_COUNT; k++) {
		int n;

		if (!(pi->traits & (1u << k)))
			continue;
		n = snprintf(traits + used, sizeof(traits) - used, "%s%s",
			     used ? "," : "", trait_names[k]);
		if (n < 0 || (size_t)n >= sizeof(traits) - used)
			return -1;	/* cannot happen: the names fit */
		used += (size_t)n;
	}
	return snprintf(buf, len, "%s\t%s\t%s\t%s", pi->name,
			tb_family_name(pi->family), traits, pi->paper);
}
