/*
 * Virtual time for libtbvclock.so (vclock_internal.h): the virtual now of
 * each clock, absolute deadlines as virtual monotonic ones, the real
 * slices that waits are cut into, intervals between real and virtual
 * time; and the functions that read the time, built on them.
 */
#define _GNU_SOURCE
#include "vclock_internal.h"

/* A real clock (ns); 0 if it cannot be read, which for the clocks used
 * here only happens without a vDSO and a kernel, i.e. never. */
int64_t vc_real_ns(clockid_t id)
{
	struct timespec ts;

	if (real_clock_gettime(id, &ts))
		return 0;
	return ts_ns(&ts);
}

/* Virtual realtime now, from a real monotonic clock (fine or coarse). */
static int64_t vnow_rt(const struct tb_vclock_page *p, clockid_t mono)
{
	struct tb_vclock_snap s;

	tb_vclock_read(p, &s);
	return tb_vclock_virtual(&s, vc_real_ns(mono));
}

int64_t vc_vnow_mono(const struct tb_vclock_page *p)
{
	struct tb_vclock_snap s;

	tb_vclock_read(p, &s);
	return tb_vclock_virtual(&s, vc_real_ns(CLOCK_MONOTONIC)) -
	       s.mono_offset;
}

/*
 * The virtual value of clock id, or -1 for the clocks left alone (CPU
 * time, and any we do not know). TAI and BOOTTIME keep their real
 * distance to REALTIME and MONOTONIC (the TAI offset, the time spent
 * suspended).
 */
int vc_virtual_clock(const struct tb_vclock_page *p, clockid_t id,
		     int64_t *ns)
{
	struct tb_vclock_snap s;
	int64_t base;

	switch (id) {
	case CLOCK_REALTIME:
	case CLOCK_TAI:
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_BOOTTIME:
		base = vc_real_ns(CLOCK_MONOTONIC);
		break;
	case CLOCK_REALTIME_COARSE:
	case CLOCK_MONOTONIC_COARSE:
		base = vc_real_ns(CLOCK_MONOTONIC_COARSE);
		break;
	default:
		return -1;
	}
	tb_vclock_read(p, &s);
	*ns = tb_vclock_virtual(&s, base);
	switch (id) {
	case CLOCK_TAI:
		/* whole seconds: the offset is, and the two reads are not
		 * simultaneous */
		*ns += (vc_real_ns(CLOCK_TAI) - vc_real_ns(CLOCK_REALTIME) +
			NS / 2) / NS * NS;
		break;
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE:
		*ns -= s.mono_offset;
		break;
	case CLOCK_BOOTTIME:
		*ns += vc_real_ns(CLOCK_BOOTTIME) -
		       vc_real_ns(CLOCK_MONOTONIC) - s.mono_offset;
		break;
	default:
		break;
	}
	return 0;
}

/*
 * An absolute deadline on clock id (or, id == -1, on an unknown clock,
 * told apart by its size) as a deadline on the virtual monotonic clock,
 * the one every wait below counts against.
 */
int64_t vc_deadline_mono(const struct tb_vclock_page *p, clockid_t id,
			 const struct timespec *abs)
{
	int64_t want = ts_ns(abs), now_id, now_mono;

	if (id == (clockid_t) -1)
		id = abs->tv_sec >= TB_VCLOCK_REALTIME_MIN_S ?
		     CLOCK_REALTIME : CLOCK_MONOTONIC;
	if (vc_virtual_clock(p, id, &now_id))
		return want;
	now_mono = vc_vnow_mono(p);
	return tb_vclock_add(now_mono, tb_vclock_add(want, -now_id));
}

/*
 * The next real slice of a wait for virtual monotonic deadline dl: the
 * remaining virtual time divided by the rate, at most check_ns; 0 once
 * the deadline is reached.
 */
int64_t vc_slice(const struct tb_vclock_page *p, int64_t dl)
{
	struct tb_vclock_snap s;
	int64_t rem, real;

	tb_vclock_read(p, &s);
	rem = tb_vclock_add(dl, -(tb_vclock_virtual(&s,
			vc_real_ns(CLOCK_MONOTONIC)) - s.mono_offset));
	real = tb_vclock_real_wait(rem, s.rate);
	return real < s.check_ns ? real : s.check_ns;
}

/* Virtual time left until dl, never negative (for "remaining" results). */
int64_t vc_left(const struct tb_vclock_page *p, int64_t dl)
{
	int64_t rem = tb_vclock_add(dl, -vc_vnow_mono(p));

	return rem > 0 ? rem : 0;
}

/* A real interval (timers' remaining times) in virtual time. */
int64_t vc_to_virtual(const struct tb_vclock_page *p, int64_t real)
{
	struct tb_vclock_snap s;

	tb_vclock_read(p, &s);
	return tb_vclock_scale(real, s.rate);
}

int64_t vc_to_real(const struct tb_vclock_page *p, int64_t virt)
{
	struct tb_vclock_snap s;

	tb_vclock_read(p, &s);
	return tb_vclock_real_wait(virt, s.rate);
}

/* ---- reading the time ---- */

/* Pointers the headers declare nonnull are not checked: the compiler
 * would drop the checks, and libc itself faults on them. */

int clock_gettime(clockid_t id, struct timespec *ts)
{
	const struct tb_vclock_page *p = PAGE();
	int64_t ns;

	if (!p || vc_virtual_clock(p, id, &ns))
		return real_clock_gettime(id, ts);
	*ts = ns_ts(ns);
	return 0;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	const struct tb_vclock_page *p = PAGE();

	if (!p)
		return real_gettimeofday(tv, tz);
	if (tz && real_gettimeofday(NULL, tz))
		return -1;
	*tv = ns_tv(vnow_rt(p, CLOCK_MONOTONIC));
	return 0;
}

time_t time(time_t *t)
{
	const struct tb_vclock_page *p = PAGE();
	time_t now;

	if (!p)
		return real_time(t);
	now = (time_t) (vnow_rt(p, CLOCK_MONOTONIC) / NS);
	if (t)
		*t = now;
	return now;
}

int timespec_get(struct timespec *ts, int base)
{
	const struct tb_vclock_page *p = PAGE();

	if (!p || base != TIME_UTC)
		return real_timespec_get(ts, base);
	*ts = ns_ts(vnow_rt(p, CLOCK_MONOTONIC));
	return base;
}
