"""What the replay prints while it runs: the progress line and its parts."""

import sys


def progress(text, final=False):
    if sys.stdout.isatty():
        sys.stdout.write("\r\033[K" + text + ("\n" if final else ""))
    else:
        sys.stdout.write(text + "\n")
    sys.stdout.flush()


def held_note(queued):
    """The progress line's note on held jobs: a held job never starts by
    itself, so the replay would drain forever without saying why."""
    held = sorted((q[2] for q in queued.values() if q[2]), key=int)
    if not held:
        return ""
    return (f", {len(held)} held by Slurm (make exec CMD='squeue -j "
            f"{','.join(held)}'; scontrol release to go on)")


def fmt_time(seconds):
    s = int(seconds)
    d, s = divmod(s, 86400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    return (f"{d}d " if d else "") + f"{h:02d}:{m:02d}:{s:02d}"
