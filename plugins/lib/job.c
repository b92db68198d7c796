#include "job.h"

#include <string.h>

static const char *const pattern_names[TB_PATTERN_COUNT] = {
	[TB_PATTERN_RHVD] = "rhvd",
	[TB_PATTERN_RD] = "rd",
	[TB_PATTERN_BINOMIAL] = "binomial",
	[TB_PATTERN_RING] = "ring",
	[TB_PATTERN_CMC] = "cmc",
};

const char *tb_pattern_name(enum tb_pattern p)
{
	return (p >= 0 && p < TB_PATTERN_COUNT) ? pattern_names[p] : "?";
}

int tb_pattern_parse(const char *name, enum tb_pattern *out)
{
	for (int p = 0; p < TB_PATTERN_COUNT; p++) {
		if (!strcmp(name, pattern_names[p])) {
			*out = (enum tb_pattern)p;
			return 0;
		}
	}
	return -1;
}

int tb_pattern_from_study_id(int id, enum tb_pattern *out)
{
	if (id < 1 || id > TB_PATTERN_COUNT)
		return -1;
	*out = (enum tb_pattern)(id - 1);
	return 0;
}
