#include "profile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *what, const char *text)
{
	if (err && errlen)
		snprintf(err, errlen, "comment '%.64s': %s", text, what);
	return -1;
}

static int number(const char *s, size_t n, double lo, double hi, double *out)
{
	char buf[32], *end;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	if (errno || *end || !isfinite(*out) || *out < lo || *out > hi)
		return -1;
	return 0;
}

int tb_profile_parse(const char *text, struct tb_profile *p, char *err,
		     size_t errlen)
{
	const char *f[6];
	size_t len[6];
	int n = 0;
	double v;

	p->comm = 0;
	p->pattern = TB_PATTERN_RD;
	p->comm_fraction = 0.5;
	p->runtime = 0;
	p->app[0] = '\0';
	if (!text || !*text)
		return fail(err, errlen, "empty", "");
	for (const char *s = text;; n++) {
		const char *colon = strchr(s, ':');
		if (n == 5)
			return fail(err, errlen, "more than 5 fields", text);
		f[n] = s;
		len[n] = colon ? (size_t)(colon - s) : strlen(s);
		if (!colon) {
			n++;
			break;
		}
		s = colon + 1;
	}
	if (len[0] != 1 || (f[0][0] != '0' && f[0][0] != '1'))
		return fail(err, errlen, "first field must be 0 or 1", text);
	p->comm = f[0][0] == '1';
	if (n > 1) {
		char name[16];
		if (len[1] == 0 || len[1] >= sizeof(name))
			return fail(err, errlen, "bad pattern", text);
		memcpy(name, f[1], len[1]);
		name[len[1]] = '\0';
		if (len[1] == 1 && name[0] >= '1' && name[0] <= '9') {
			if (tb_pattern_from_study_id(name[0] - '0', &p->pattern))
				return fail(err, errlen,
					    "pattern id must be 1-5", text);
		} else if (tb_pattern_parse(name, &p->pattern)) {
			return fail(err, errlen,
				    "unknown pattern (rd, rhvd, binomial, ring, cmc or 1-5)",
				    text);
		}
	}
	if (n > 2) {
		if (number(f[2], len[2], 0, 100, &v))
			return fail(err, errlen, "percent must be 0-100", text);
		p->comm_fraction = v / 100.0;
	}
	if (n > 3) {
		if (number(f[3], len[3], 0, 1e9, &v))
			return fail(err, errlen, "runtime must be 0-1e9 seconds",
				    text);
		p->runtime = v;
	}
	if (n > 4) {
		if (len[4] == 0 || len[4] >= sizeof(p->app))
			return fail(err, errlen,
				    "application must be 1-31 characters",
				    text);
		for (size_t i = 0; i < len[4]; i++) {
			char c = f[4][i];

			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			      (c >= '0' && c <= '9') || c == '-' || c == '_' ||
			      c == '.'))
				return fail(err, errlen,
					    "application must be letters, digits, '-', '_' or '.'",
					    text);
		}
		memcpy(p->app, f[4], len[4]);
		p->app[len[4]] = '\0';
	}
	return 0;
}

int tb_profile_parse_option(const char *arg, struct tb_profile *p, char *err,
			    size_t errlen)
{
	static const char expected[] =
		"expected <pattern>[:<percent>], pattern one of rd, rhvd, binomial, ring, cmc, none and percent 0-100";
	const char *colon = arg ? strchr(arg, ':') : NULL;
	char text[80];

	if (!arg || !*arg || strlen(arg) > 64 ||
	    (colon && strchr(colon + 1, ':')))
		goto bad;
	if (!strncmp(arg, "none", 4) && (!arg[4] || arg[4] == ':'))
		snprintf(text, sizeof(text), "0:rd%s", colon ? colon : "");
	else
		snprintf(text, sizeof(text), "1:%s", arg);
	if (!tb_profile_parse(text, p, NULL, 0))
		return 0;
bad:
	if (err && errlen)
		snprintf(err, errlen, "--comm=%.64s: %s", arg ? arg : "",
			 expected);
	return -1;
}
