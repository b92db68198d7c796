/*
 * Kernel timers in virtual time, for libtbvclock.so (vclock_internal.h):
 * POSIX timers, timerfds, ITIMER_REAL and alarm. They cannot be sliced:
 * each is armed with the real length its virtual one has at that moment.
 */
#define _GNU_SOURCE
#include <sys/timerfd.h>

#include "vclock_internal.h"

/* ---- timers ---- */

/*
 * A timer setting in virtual time as one in real time. An absolute
 * expiry becomes a relative one (the timer's clock is unknown; realtime-
 * like and monotonic deadlines are told apart by their size), which also
 * drops TFD_TIMER_CANCEL_ON_SET (it needs an absolute realtime timer).
 * A virtual expiry already past fires at once (1 ns, as 0 would disarm).
 */
static void timer_to_real(const struct tb_vclock_page *p, int *flags,
			  const struct itimerspec *in, struct itimerspec *out)
{
	int64_t value = ts_ns(&in->it_value);

	if (value && (*flags & TIMER_ABSTIME)) {
		value = vc_left(p, vc_deadline_mono(p, (clockid_t) -1,
						    &in->it_value));
		value = value ? vc_to_real(p, value) : 1;
	} else {
		value = vc_to_real(p, value);
	}
	*flags &= ~(TIMER_ABSTIME | TFD_TIMER_ABSTIME |
		    TFD_TIMER_CANCEL_ON_SET);
	out->it_value = ns_ts(value);
	out->it_interval = ns_ts(vc_to_real(p, ts_ns(&in->it_interval)));
}

static void timer_to_virtual(const struct tb_vclock_page *p,
			     struct itimerspec *its)
{
	its->it_value = ns_ts(vc_to_virtual(p, ts_ns(&its->it_value)));
	its->it_interval = ns_ts(vc_to_virtual(p, ts_ns(&its->it_interval)));
}

static int timer_bad(const struct itimerspec *its)
{
	return !its || bad_ts(&its->it_value) || bad_ts(&its->it_interval);
}

int timer_settime(timer_t t, int flags, const struct itimerspec *restrict in,
		  struct itimerspec *restrict old)
{
	const struct tb_vclock_page *p = PAGE();
	struct itimerspec real;
	int rc;

	if (!p || timer_bad(in))
		return real_timer_settime(t, flags, in, old);
	timer_to_real(p, &flags, in, &real);
	rc = real_timer_settime(t, flags, &real, old);
	if (!rc && old)
		timer_to_virtual(p, old);
	return rc;
}

int timer_gettime(timer_t t, struct itimerspec *cur)
{
	const struct tb_vclock_page *p = PAGE();
	int rc = real_timer_gettime(t, cur);

	if (!rc && p && cur)
		timer_to_virtual(p, cur);
	return rc;
}

int timerfd_settime(int fd, int flags, const struct itimerspec *in,
		    struct itimerspec *old)
{
	const struct tb_vclock_page *p = PAGE();
	struct itimerspec real;
	int rc;

	if (!p || timer_bad(in))
		return real_timerfd_settime(fd, flags, in, old);
	timer_to_real(p, &flags, in, &real);
	rc = real_timerfd_settime(fd, flags, &real, old);
	if (!rc && old)
		timer_to_virtual(p, old);
	return rc;
}

int timerfd_gettime(int fd, struct itimerspec *cur)
{
	const struct tb_vclock_page *p = PAGE();
	int rc = real_timerfd_gettime(fd, cur);

	if (!rc && p && cur)
		timer_to_virtual(p, cur);
	return rc;
}

/* Only ITIMER_REAL counts wall time; the other two count CPU time. */
int setitimer(__itimer_which_t which, const struct itimerval *restrict in,
	      struct itimerval *restrict old)
{
	const struct tb_vclock_page *p = PAGE();
	struct itimerval real;
	int rc;

	if (!p || which != ITIMER_REAL || !in ||
	    in->it_value.tv_usec < 0 || in->it_value.tv_usec >= 1000000 ||
	    in->it_interval.tv_usec < 0 || in->it_interval.tv_usec >= 1000000)
		return real_setitimer(which, in, old);
	/* to_real rounds up to whole ns; setitimer wants whole us, and 0
	 * would disarm: round up again */
	real.it_value = ns_tv(vc_to_real(p, tv_ns(&in->it_value)) + 999);
	real.it_interval = ns_tv(vc_to_real(p, tv_ns(&in->it_interval)) + 999);
	rc = real_setitimer(which, &real, old);
	if (!rc && old) {
		old->it_value = ns_tv(vc_to_virtual(p, tv_ns(&old->it_value)));
		old->it_interval = ns_tv(vc_to_virtual(p,
						    tv_ns(&old->it_interval)));
	}
	return rc;
}

int getitimer(__itimer_which_t which, struct itimerval *cur)
{
	const struct tb_vclock_page *p = PAGE();
	int rc = real_getitimer(which, cur);

	if (!rc && p && cur && which == ITIMER_REAL) {
		cur->it_value = ns_tv(vc_to_virtual(p, tv_ns(&cur->it_value)));
		cur->it_interval = ns_tv(vc_to_virtual(p,
						    tv_ns(&cur->it_interval)));
	}
	return rc;
}

unsigned int alarm(unsigned int seconds)
{
	const struct tb_vclock_page *p = PAGE();
	struct itimerval in = { { 0, 0 }, { (time_t) seconds, 0 } }, old;

	if (!p)
		return real_alarm(seconds);
	if (setitimer(ITIMER_REAL, &in, &old))
		return 0;
	/* like glibc: the seconds left, rounded, and 1 rather than 0 for a
	 * pending alarm */
	if (!old.it_value.tv_sec && old.it_value.tv_usec)
		return 1;
	return (unsigned int) old.it_value.tv_sec +
	       (old.it_value.tv_usec >= 500000);
}
