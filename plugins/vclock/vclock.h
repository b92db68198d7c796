/*
 * The testbed's virtual clock: one page shared by every process of a
 * cluster (see docs/vclock.md).
 *
 *   virtual realtime  = anchor_virtual + rate * (mono - anchor_mono)
 *   virtual monotonic = virtual realtime - mono_offset
 *
 * where mono is the real CLOCK_MONOTONIC, which every container of one
 * host shares (Docker makes no time namespace) and which, unlike
 * CLOCK_REALTIME, never steps. Both virtual clocks derive from the same
 * reading, so differences of virtual monotonic times are exactly
 * differences of virtual realtime, jumps included.
 *
 * The page is written only by tb-vclock, under a seqlock: a writer makes
 * seq odd, stores the fields, makes it even again; a reader retries while
 * seq is odd or changed under it. Every field is a lock-free 64-bit
 * atomic, so even a reader that gives up on a dead writer (odd seq for
 * ever) reads whole values, never torn ones.
 *
 * The file never shrinks and is never replaced: readers map it, and a
 * mapping past the end of a truncated file would fault. Deleting it is
 * harmless (the mapping keeps the inode).
 *
 * anchor_wall, the real CLOCK_REALTIME read back to back with anchor_mono,
 * maps file timestamps to virtual time (tb_vclock_file_virtual below).
 */
#ifndef TB_VCLOCK_H
#define TB_VCLOCK_H

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define TB_VCLOCK_MAGIC UINT64_C(0x4b434f4c43564254) /* "TBVCLOCK" */
#define TB_VCLOCK_VERSION 1
/* The file's size: one page, so a mapping never reaches past its end. */
#define TB_VCLOCK_FILE_SIZE 4096
#define TB_VCLOCK_NS INT64_C(1000000000)
/* The longest real wait a process makes in one go by default, so that a
 * jump or a new rate reaches a sleeping process within this much. */
#define TB_VCLOCK_CHECK_NS_DEFAULT (50 * INT64_C(1000000))
/* Waits shorter than this (real) are not shortened any further: a timed
 * wait is never below min(its virtual length, 1 ms), so that a loop of
 * short waits under a high rate cannot become a busy spin. */
#define TB_VCLOCK_MIN_WAIT_NS INT64_C(1000000)
/* Absolute deadlines of an unknown clock (a condition variable's, a
 * timer's) are realtime-like (REALTIME, TAI) from this epoch second
 * (2000-01-01) on, monotonic below it: a monotonic clock would need 30
 * years of (virtual) uptime to get there. */
#define TB_VCLOCK_REALTIME_MIN_S INT64_C(946684800)
#define TB_VCLOCK_RATE_MAX 1e6

struct tb_vclock_page {
	uint64_t magic;
	uint32_t version;
	_Atomic uint32_t seq;
	_Atomic int64_t anchor_mono;	/* real CLOCK_MONOTONIC, ns */
	_Atomic int64_t anchor_wall;	/* real CLOCK_REALTIME then, ns */
	_Atomic int64_t anchor_virtual;	/* virtual realtime at anchor_mono, ns */
	_Atomic int64_t mono_offset;	/* virtual realtime - virtual monotonic */
	_Atomic uint64_t rate_bits;	/* the rate, a double's bits */
	_Atomic int64_t check_ns;	/* longest real wait slice */
};

/* One consistent reading of the page. */
struct tb_vclock_snap {
	int64_t anchor_mono;
	int64_t anchor_wall;
	int64_t anchor_virtual;
	int64_t mono_offset;
	int64_t check_ns;
	double rate;
};

static inline double tb_vclock_bits_rate(uint64_t bits)
{
	double rate;

	memcpy(&rate, &bits, sizeof(rate));
	return rate;
}

static inline uint64_t tb_vclock_rate_bits(double rate)
{
	uint64_t bits;

	memcpy(&bits, &rate, sizeof(bits));
	return bits;
}

static inline int tb_vclock_rate_ok(double rate)
{
	return isfinite(rate) && rate > 0 && rate <= TB_VCLOCK_RATE_MAX;
}

/* 0 if the page is ours and sane (its header; the rate is checked at each
 * reading since a writer may change it). */
static inline int tb_vclock_page_ok(const struct tb_vclock_page *p)
{
	return p->magic == TB_VCLOCK_MAGIC &&
	       p->version == TB_VCLOCK_VERSION ? 0 : -1;
}

/*
 * Reads the page under its seqlock. A writer holds the odd count for a
 * few stores only; after many retries the writer is presumed dead and the
 * fields are taken as they are (each is whole). A rate that makes no
 * sense reads as 1, so that no caller ever divides by it blindly.
 */
static inline void tb_vclock_read(const struct tb_vclock_page *p,
				  struct tb_vclock_snap *s)
{
	int tries;

	for (tries = 0; ; tries++) {
		uint32_t seq = atomic_load_explicit(&p->seq,
						    memory_order_acquire);

		s->anchor_mono = atomic_load_explicit(&p->anchor_mono,
						      memory_order_relaxed);
		s->anchor_wall = atomic_load_explicit(&p->anchor_wall,
						      memory_order_relaxed);
		s->anchor_virtual = atomic_load_explicit(
			&p->anchor_virtual, memory_order_relaxed);
		s->mono_offset = atomic_load_explicit(&p->mono_offset,
						      memory_order_relaxed);
		s->check_ns = atomic_load_explicit(&p->check_ns,
						   memory_order_relaxed);
		s->rate = tb_vclock_bits_rate(atomic_load_explicit(
			&p->rate_bits, memory_order_relaxed));
		atomic_thread_fence(memory_order_acquire);
		if ((!(seq & 1) &&
		     seq == atomic_load_explicit(&p->seq,
						 memory_order_relaxed)) ||
		    tries >= 10000)
			break;
	}
	if (!tb_vclock_rate_ok(s->rate))
		s->rate = 1.0;
	if (s->check_ns <= 0)
		s->check_ns = TB_VCLOCK_CHECK_NS_DEFAULT;
}

/* a + b, saturated: huge timeouts ("forever") must not wrap around. */
static inline int64_t tb_vclock_add(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

/* d * rate, saturated. */
static inline int64_t tb_vclock_scale(int64_t d, double rate)
{
	double x = (double) d * rate;

	if (x >= 9.2e18)
		return INT64_MAX;
	if (x <= -9.2e18)
		return INT64_MIN;
	return (int64_t) x;
}

/* Virtual realtime (ns) at real monotonic time mono. */
static inline int64_t tb_vclock_virtual(const struct tb_vclock_snap *s,
					int64_t mono)
{
	return tb_vclock_add(s->anchor_virtual,
			     tb_vclock_scale(mono - s->anchor_mono, s->rate));
}

/*
 * The real length of a virtual wait: divided by the rate, rounded up,
 * and never below min(virtual, TB_VCLOCK_MIN_WAIT_NS) (no busy spin).
 */
static inline int64_t tb_vclock_real_wait(int64_t virt, double rate)
{
	double r;
	int64_t real, floor_ns;

	if (virt <= 0)
		return 0;
	r = ceil((double) virt / rate);
	real = r >= 9.2e18 ? INT64_MAX : (int64_t) r;
	floor_ns = virt < TB_VCLOCK_MIN_WAIT_NS ? virt : TB_VCLOCK_MIN_WAIT_NS;
	return real > floor_ns ? real : floor_ns;
}

/*
 * File timestamps. The kernel stamps files with the real CLOCK_REALTIME;
 * a process on the virtual clock sees them as virtual times:
 *
 *   t >= anchor_wall: virtual = anchor_virtual + rate * (t - anchor_wall)
 *   t <  anchor_wall: virtual = t + (anchor_virtual - anchor_wall)
 *
 * The first is the clock itself, read off the realtime clock instead of
 * the monotonic one: exact for files written since the last anchor change
 * (init, set-rate, jump) as long as the real clocks advance together (an
 * NTP step of the wall clock would be multiplied by the rate). Before the
 * anchor, the offset at the anchor: monotone and continuous at the anchor,
 * never later than the virtual now; a file written before a jump or a
 * rate change shows its real age as of the anchor, not its virtual one.
 */
static inline int64_t tb_vclock_file_virtual(const struct tb_vclock_snap *s,
					     int64_t t)
{
	if (t >= s->anchor_wall)
		return tb_vclock_add(s->anchor_virtual,
				     tb_vclock_scale(tb_vclock_add(
					t, -s->anchor_wall), s->rate));
	return tb_vclock_add(t, tb_vclock_add(s->anchor_virtual,
					      -s->anchor_wall));
}

/*
 * The inverse, for times a process sets (touch -d): the earliest real
 * time that maps to v or later, so that v reads back as v, or at most
 * rate ns later.
 */
static inline int64_t tb_vclock_file_real(const struct tb_vclock_snap *s,
					  int64_t v)
{
	double d;
	int64_t t;
	int i;

	if (v < s->anchor_virtual)
		return tb_vclock_add(v, tb_vclock_add(s->anchor_wall,
						      -s->anchor_virtual));
	d = floor((double) tb_vclock_add(v, -s->anchor_virtual) / s->rate);
	t = tb_vclock_add(s->anchor_wall, d >= 9.2e18 ? INT64_MAX :
			  (int64_t) d - 1);
	/* the double is off by a few ns at most, for spans under 100 days */
	for (i = 0; i < 16 && t < INT64_MAX &&
	     tb_vclock_file_virtual(s, t) < v; i++)
		t++;
	return t;
}

#endif
