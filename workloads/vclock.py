"""The replay driver's view of time: wall time, or the cluster's virtual clock.

A replay plans every job in Slurm's time (begin times, limits, the job's
sleep). Under CLOCK=scaled that is wall time and the log is compressed by
SPEEDUP; under CLOCK=virtual every Slurm process of the cluster runs on one
virtual clock (docs/vclock.md) at rate SPEEDUP, and the log is replayed in
its own seconds. The driver itself runs on wall time (it is not preloaded:
its timeouts on Docker must stay wall seconds) and reads the virtual time
from the clock page, which scripts/testbed makes in STATE_DIR/vclock and
mounts into every Slurm container.

The page's layout is plugins/vclock/vclock.h's struct tb_vclock_page; it is
read here under its seqlock, and written only by tb-vclock (in the
controller's container), which serialises writers.
"""

import os
import struct
import time

# struct tb_vclock_page: magic, version, seq, anchor_mono, anchor_wall,
# anchor_virtual, mono_offset, rate (a double's bits), check_ns.
PAGE = struct.Struct("<QIIqqqqdq")
MAGIC = 0x4b434f4c43564254  # "TBVCLOCK"
VERSION = 1
# Where the page is inside the Slurm containers (compose/base.yml).
CONTAINER_PAGE = "/run/testbed-vclock/clock"


class ClockError(Exception):
    pass


def default_speedup(clock_kind):
    """SPEEDUP when none is given: 1000 on the virtual clock, 100 on the
    scaled one (params.tsv, SPEEDUP). The replay and the experiment's
    planning both read it here."""
    return 1000.0 if clock_kind == "virtual" else 100.0


def page_path(state_dir):
    return os.path.join(state_dir, "vclock", "clock")


def read_page(path):
    """(anchor_mono, anchor_virtual, rate) from the page, consistent under
    its seqlock; ClockError if it is missing or not a clock page."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as e:
        raise ClockError(f"{path}: {e.strerror}; the cluster's clock is made by "
                         "`make up`") from None
    try:
        for _ in range(1000):
            raw = os.pread(fd, PAGE.size, 0)
            if len(raw) < PAGE.size:
                raise ClockError(f"{path}: not a clock page (too short)")
            magic, version, seq, mono, _, virt, _, rate, _ = PAGE.unpack(raw)
            if magic != MAGIC or version != VERSION:
                raise ClockError(f"{path}: not a clock page")
            again = PAGE.unpack(os.pread(fd, PAGE.size, 0))[2]
            if seq % 2 == 0 and seq == again:
                if not 0 < rate <= 1e6:
                    rate = 1.0
                return mono, virt, rate
            time.sleep(0.0001)
        raise ClockError(f"{path}: the page stays locked by a writer")
    finally:
        os.close(fd)


def check_ns(path):
    """The page's check_ns: the longest real slice of a wait (the page's
    layout above; its writer only ever changes it at init)."""
    try:
        with open(path, "rb") as f:
            raw = f.read(PAGE.size)
    except OSError as e:
        raise ClockError(f"{path}: {e.strerror}") from None
    if len(raw) < PAGE.size or PAGE.unpack(raw)[0] != MAGIC:
        raise ClockError(f"{path}: not a clock page")
    return PAGE.unpack(raw)[8]


class Clock:
    """Slurm's time as the driver needs it.

    now()  Slurm's current time (epoch seconds, virtual under CLOCK=virtual)
    pace   Slurm seconds per wall second (1, or the virtual clock's rate)
    speedup  log seconds per Slurm second (SPEEDUP, or 1)
    """

    def __init__(self, kind, speedup, page=None):
        self.kind = kind
        self.page = page
        if kind == "virtual":
            self.rate = speedup
            self.pace = speedup
            self.speedup = 1.0
        else:
            self.rate = 1.0
            self.pace = 1.0
            self.speedup = speedup

    def now(self):
        # CLOCK=scaled: Slurm still runs on the cluster's clock page, at
        # rate 1 but never re-anchored, so after a virtual replay it is
        # ahead of wall time; begin times in wall time would all be in
        # Slurm's past. Wall time only where there is no page.
        if self.kind != "virtual" and not (self.page and os.path.exists(self.page)):
            return time.time()
        mono, virt, rate = read_page(self.page)
        return (virt + rate * (time.clock_gettime_ns(time.CLOCK_MONOTONIC) - mono)) / 1e9

    def now_and_rate(self):
        """(now(), the page's current rate) under the virtual clock."""
        mono, virt, rate = read_page(self.page)
        return (virt + rate * (time.clock_gettime_ns(time.CLOCK_MONOTONIC) - mono)) / 1e9, rate

    def wall(self, slurm_seconds):
        """The wall time that many Slurm seconds take at the current pace."""
        return slurm_seconds / self.pace


def set_rate_command(rate):
    return f"tb-vclock set-rate {CONTAINER_PAGE} {rate:g} >/dev/null"


def jump_command(to_epoch):
    return f"tb-vclock jump {CONTAINER_PAGE} --to {to_epoch:.3f} >/dev/null"
