/*
 * Sleeping and waiting for file descriptors in virtual time, for
 * libtbvclock.so (vclock_internal.h): the sleep family and poll, ppoll,
 * select, pselect, epoll_wait, epoll_pwait, each cut into real slices.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "vclock_internal.h"

/* ---- sleeping ---- */

/*
 * Sleeps until virtual monotonic deadline dl, slice by slice. 0, or
 * EINTR (a signal) with the virtual time left in *rem if rem is not NULL.
 */
static int sleep_until(const struct tb_vclock_page *p, int64_t dl,
		       struct timespec *rem)
{
	int64_t sl;

	while ((sl = vc_slice(p, dl)) > 0) {
		struct timespec ts = ns_ts(sl);

		if (real_nanosleep(&ts, NULL)) {
			int err = errno;

			if (rem)
				*rem = ns_ts(vc_left(p, dl));
			return err;
		}
	}
	return 0;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	const struct tb_vclock_page *p = PAGE();
	int err;

	if (!p || !req || bad_ts(req))
		return real_nanosleep(req, rem);
	err = sleep_until(p, tb_vclock_add(vc_vnow_mono(p), ts_ns(req)), rem);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

int clock_nanosleep(clockid_t id, int flags, const struct timespec *req,
		    struct timespec *rem)
{
	const struct tb_vclock_page *p = PAGE();
	int64_t dummy, dl;

	if (!p || !req || bad_ts(req) || vc_virtual_clock(p, id, &dummy))
		return real_clock_nanosleep(id, flags, req, rem);
	if (flags & TIMER_ABSTIME)
		dl = vc_deadline_mono(p, id, req);
	else
		dl = tb_vclock_add(vc_vnow_mono(p), ts_ns(req));
	/* POSIX: rem is only written for relative sleeps. */
	return sleep_until(p, dl, (flags & TIMER_ABSTIME) ? NULL : rem);
}

unsigned int sleep(unsigned int seconds)
{
	const struct tb_vclock_page *p = PAGE();
	struct timespec rem = { 0, 0 };

	if (!p)
		return real_sleep(seconds);
	if (!sleep_until(p, tb_vclock_add(vc_vnow_mono(p),
					  (int64_t) seconds * NS), &rem))
		return 0;
	/* like glibc: the seconds left, rounded */
	return (unsigned int) rem.tv_sec + (rem.tv_nsec >= NS / 2);
}

int usleep(useconds_t usec)
{
	const struct tb_vclock_page *p = PAGE();
	int err;

	if (!p)
		return real_usleep(usec);
	err = sleep_until(p, tb_vclock_add(vc_vnow_mono(p),
					   (int64_t) usec * 1000), NULL);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* ---- waiting for file descriptors ---- */

/* Each wait below: nothing to scale (no timeout, or zero) passes through;
 * otherwise real slices until something happens or the deadline passes,
 * with one last zero-timeout look at the deadline itself. */

int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo,
	  const sigset_t *mask)
{
	const struct tb_vclock_page *p = PAGE();
	int64_t dl, sl;

	if (!p || !tmo || bad_ts(tmo) || (!tmo->tv_sec && !tmo->tv_nsec))
		return real_ppoll(fds, n, tmo, mask);
	dl = tb_vclock_add(vc_vnow_mono(p), ts_ns(tmo));
	for (;;) {
		struct timespec ts = ns_ts(sl = vc_slice(p, dl));
		int rc = real_ppoll(fds, n, &ts, mask);

		if (rc || !sl)
			return rc;
	}
}

int poll(struct pollfd *fds, nfds_t n, int ms)
{
	const struct tb_vclock_page *p = PAGE();
	struct timespec tmo = { ms / 1000, (ms % 1000) * 1000000L };

	if (!p || ms <= 0)
		return real_poll(fds, n, ms);
	return ppoll(fds, n, &tmo, NULL);
}

/* select and pselect clear the sets of what did not happen: each slice
 * starts again from the caller's sets, which need a copy; past
 * FD_SETSIZE the sets are bigger than a copy, so one scaled wait. */
int pselect(int nfds, fd_set *restrict r, fd_set *restrict w,
	    fd_set *restrict e, const struct timespec *restrict tmo,
	    const sigset_t *restrict mask)
{
	const struct tb_vclock_page *p = PAGE();
	fd_set r0, w0, e0;
	int64_t dl, sl;

	if (!p || !tmo || bad_ts(tmo) || (!tmo->tv_sec && !tmo->tv_nsec))
		return real_pselect(nfds, r, w, e, tmo, mask);
	if (nfds > FD_SETSIZE || nfds < 0) {
		struct timespec ts = ns_ts(vc_to_real(p, ts_ns(tmo)));

		return real_pselect(nfds, r, w, e, &ts, mask);
	}
	if (r)
		r0 = *r;
	if (w)
		w0 = *w;
	if (e)
		e0 = *e;
	dl = tb_vclock_add(vc_vnow_mono(p), ts_ns(tmo));
	for (;;) {
		struct timespec ts = ns_ts(sl = vc_slice(p, dl));
		int rc = real_pselect(nfds, r, w, e, &ts, mask);

		if (rc || !sl)
			return rc;
		if (r)
			*r = r0;
		if (w)
			*w = w0;
		if (e)
			*e = e0;
	}
}

int select(int nfds, fd_set *restrict r, fd_set *restrict w,
	   fd_set *restrict e, struct timeval *restrict tv)
{
	const struct tb_vclock_page *p = PAGE();
	struct timespec tmo;
	int64_t dl;
	int rc, err;

	if (!p || !tv || tv->tv_usec < 0 || tv->tv_usec >= 1000000 ||
	    (!tv->tv_sec && !tv->tv_usec))
		return real_select(nfds, r, w, e, tv);
	dl = tb_vclock_add(vc_vnow_mono(p), tv_ns(tv));
	tmo = ns_ts(tv_ns(tv));
	rc = pselect(nfds, r, w, e, &tmo, NULL);
	/* Linux tells how much of the timeout was left; so do we, in
	 * virtual time. */
	err = errno;
	*tv = ns_tv(vc_left(p, dl));
	errno = err;
	return rc;
}

int epoll_pwait(int epfd, struct epoll_event *ev, int max, int ms,
		const sigset_t *mask)
{
	const struct tb_vclock_page *p = PAGE();
	int64_t dl, sl;

	if (!p || ms <= 0)
		return real_epoll_pwait(epfd, ev, max, ms, mask);
	dl = tb_vclock_add(vc_vnow_mono(p), (int64_t) ms * 1000000);
	for (;;) {
		int rc;

		sl = vc_slice(p, dl);
		/* whole milliseconds, rounded up */
		rc = real_epoll_pwait(epfd, ev, max,
				      (int) ((sl + 999999) / 1000000), mask);
		if (rc || !sl)
			return rc;
	}
}

int epoll_wait(int epfd, struct epoll_event *ev, int max, int ms)
{
	if (!PAGE() || ms <= 0)
		return real_epoll_wait(epfd, ev, max, ms);
	return epoll_pwait(epfd, ev, max, ms, NULL);
}
