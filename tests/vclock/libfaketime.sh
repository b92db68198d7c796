#!/usr/bin/env bash
# The measurements of Debian's libfaketime that docs/vclock.md reports,
# with the same probe as run.sh. Needs the libfaketime and faketime
# packages (trixie: 0.9.10+2024-06-05+gba9ed5b2-0.6).
#   tests/vclock/libfaketime.sh BUILD_DIR
set -uo pipefail
probe=${1:?usage: libfaketime.sh BUILD_DIR}/vclock-probe
lft=${LIBFAKETIME:-/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1}
[[ -f $lft ]] || { echo "libfaketime.sh: no $lft (apt-get install libfaketime)" >&2; exit 2; }
field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }
ft() { local rate=$1; shift; LD_PRELOAD=$lft FAKETIME="+0 x$rate" "$@"; }
agree() { # A B RATE: how far apart two "probe pair" lines are (virtual s)
	echo "$(( ($(field v "$2") - $(field v "$1")) - $3 * ($(field r "$2") - $(field r "$1")) ))" |
		awk '{ printf "%.6f virtual s apart\n", $1 / 1e9 }'
}

echo "== two processes started 2 s apart, FAKETIME='+0 x100'"
a=$(ft 100 "$probe" pair); sleep 2; b=$(ft 100 "$probe" pair); agree "$a" "$b" 100
echo "== the same with '@2030-01-01 00:00:00 x100' and FAKETIME_DONT_RESET=1"
a=$(LD_PRELOAD=$lft FAKETIME="@2030-01-01 00:00:00 x100" FAKETIME_DONT_RESET=1 "$probe" pair)
sleep 2
b=$(LD_PRELOAD=$lft FAKETIME="@2030-01-01 00:00:00 x100" FAKETIME_DONT_RESET=1 "$probe" pair)
agree "$a" "$b" 100
echo "== children of one faketime wrapper (FAKETIME_SHARED), 2 s apart"
out=$(faketime -f "+0 x100" bash -c "'$probe' pair; sleep 200; '$probe' pair")
agree "$(sed -n 1p <<<"$out")" "$(sed -n 2p <<<"$out")" 100
echo "== a FAKETIME_SHARED naming no segment (another container's, gone)"
stale="/faketime_sem_999999 /faketime_shm_999999"
before=$(ls /dev/shm)
LD_PRELOAD=$lft FAKETIME="+0 x100" FAKETIME_SHARED="$stale" "$probe" pair >/dev/null \
	&& echo "exit 0, no message: the process silently runs its own clock"
echo "-- the same through an exec (env runs the probe), 5 s at most:"
timeout 5 env LD_PRELOAD="$lft" FAKETIME="+0 x100" \
	env FAKETIME_SHARED="$stale" "$probe" pair >/dev/null
rc=$?
[[ $rc -eq 124 ]] && echo "hung in libfaketime's constructor (killed by timeout)" || echo "exit $rc"
# the segments those runs left behind (their creators never exit cleanly)
comm -13 <(echo "$before") <(ls /dev/shm) | grep faketime | sed 's|^|/dev/shm/|' | xargs -r rm -f
echo "== monotonic clock's value (real: seconds of uptime)"
ft 100 "$probe" pair | awk '{ print $4 }'

start=$(date +%s%N); ft 100 sleep 10
echo "coreutils sleep 10 at x100: $(( ($(date +%s%N) - start) / 1000000 )) ms wall"
ft 100 "$probe" sleep 10 | sed 's/^/sleep(10) at x100: /'
for how in poll ppoll select epoll; do ft 100 "$probe" $how 1000; done
ft 1000 "$probe" poll 1000 | sed 's/^/x1000: /'
ft 1000 "$probe" poll 500 | sed 's/^/x1000: /'
for how in timer timerabs timerfd; do ft 100 "$probe" $how 1 | sed 's/^/x100: /'; done
ft 1000 "$probe" pollloop 500 1 | sed 's/^/x1000 poll(500): /'
ft 100 "$probe" pollloop 50 1 | sed 's/^/x100 poll(50): /'
for mode in static init mono; do
	for _ in 1 2 3; do ft 100 timeout 20 "$probe" cond 1 16 $mode; done
done
ft 100 timeout 10 "$probe" sem 1 || echo "sem_timedwait of 1 virtual s: no answer in 10 s wall"
ft 100 "$probe" semclock 1
echo "bench: without, with libfaketimeMT"
"$probe" bench 2000000
ft 100 "$probe" bench 2000000
