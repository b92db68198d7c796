#!/usr/bin/env python3
"""Fetch the public job logs the named logs resolve to, checking sha256.

    python3 -m workloads.fetch_logs <dest dir> [--from DIR] [names...]

Each file is downloaded (or, with --from, copied from a directory that
already holds it: an offline mirror, ../shared/workloads) into
<dest>/<file>.part, decompressed if the source is gzip, checked against its
pinned sha256 and only then renamed into place: an interrupted or corrupt
fetch never leaves a file a replay would read. Files already present with
the right sha256 are left alone. One line per file; exit 1 if any failed.
"""

import argparse
import gzip
import hashlib
import os
import shutil
import sys
import urllib.error
import urllib.request

GITHUB = "https://raw.githubusercontent.com"
PWA = "https://www.cs.huji.ac.il/labs/parallel/workload"

# name, file, source, sha256 of the file as stored (None: not pinned, the
# full log's checksum was never taken from a trusted copy; it is printed).
SOURCES = [
    ("theta", "seed000-theta-2018.jobs",
     f"{GITHUB}/gaganmangat/MTech-Thesis/HEAD/JobLogs/theta.swf",
     "3d5f2426508b679320946bfca6a5d0f78cff94ed7ce5d6cddbcc24070484d299"),
    ("mira", "seed000-mira-2019.jobs",
     f"{GITHUB}/gaganmangat/MTech-Thesis/HEAD/JobLogs/mira.swf",
     "0bd0474a8693333e2fd50a548cc174f0392be5bee79c01c8a1cf1c23a31f8c2b"),
    ("intrepid", "seed000-intrepid-2009.jobs",
     f"{GITHUB}/gaganmangat/MTech-Thesis/HEAD/JobLogs/anl.swf",
     "f9b56021a6e129c1f154155a00f2628c1100da93933380930069818b7ea262b5"),
    ("curie", "CEA-Curie-2011-2.1-cln.swf",
     f"{PWA}/l_cea_curie/CEA-Curie-2011-2.1-cln.swf.gz", None),
    ("curie", "curie-2011-excerpt.swf",
     f"{GITHUB}/jad-darrous/predictsim/HEAD/experiments/data/"
     "CEA-curie_sample/swf_unfiltered/log.swf",
     "4013cd65c960904f6d9f1e28effc9566d2e4e89effac0793cbe28672ffd688a9"),
    ("lublin", "lublin-256.swf",
     f"{GITHUB}/DIR-LAB/deep-batch-scheduler/HEAD/data/lublin_256.swf",
     "a394ab3d81179ebcf645a1cbd593a60b6dff7f11a510e1e6285c45f43310c962"),
]


class FetchError(Exception):
    pass


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _copy_stream(src, dst_path, gz):
    with open(dst_path, "wb") as out:
        shutil.copyfileobj(gzip.GzipFile(fileobj=src) if gz else src, out, 1 << 20)


def obtain(url, file, part, mirror):
    gz = url.endswith(".gz")
    if mirror is not None:
        for candidate, is_gz in ((file, False), (os.path.basename(url), gz)):
            path = os.path.join(mirror, candidate)
            if os.path.exists(path):
                with open(path, "rb") as src:
                    _copy_stream(src, part, is_gz)
                return path
        raise FetchError(f"not in {mirror}")
    try:
        with urllib.request.urlopen(url, timeout=60) as src:
            _copy_stream(src, part, gz)
    except (urllib.error.URLError, OSError, EOFError) as e:
        raise FetchError(f"{url}: cannot download ({getattr(e, 'reason', e)})") from e
    return url


def fetch_one(dest, name, file, url, sha, mirror):
    final = os.path.join(dest, file)
    stale = ""
    if os.path.exists(final):
        if sha is None or sha256_of(final) == sha:
            return f"{name}: {file} present"
        stale = f" (the {file} present has the wrong sha256 and was kept)"
    part = final + ".part"
    try:
        try:
            source = obtain(url, file, part, mirror)
        except FetchError as e:
            raise FetchError(f"{e}{stale}") from e
        got = sha256_of(part)
        if sha is not None and got != sha:
            raise FetchError(f"{source}: sha256 {got}, expected {sha}")
        os.replace(part, final)
    finally:
        if os.path.exists(part):
            os.remove(part)
    return (f"{name}: {file} from {source}, sha256 ok" if sha else
            f"{name}: {file} from {source}, sha256 {got} (not pinned)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dest")
    ap.add_argument("--from", dest="mirror", metavar="DIR")
    ap.add_argument("names", nargs="*")
    args = ap.parse_intermixed_args()
    known = sorted({s[0] for s in SOURCES})
    for n in args.names:
        if n not in known:
            print(f"fetch-logs: unknown log '{n}'; valid: {' '.join(known)}", file=sys.stderr)
            return 2
    if args.mirror is not None and not os.path.isdir(args.mirror):
        print(f"fetch-logs: FROM={args.mirror}: not a directory", file=sys.stderr)
        return 2
    os.makedirs(args.dest, exist_ok=True)
    failed = 0
    for name, file, url, sha in SOURCES:
        if args.names and name not in args.names:
            continue
        try:
            print(fetch_one(args.dest, name, file, url, sha, args.mirror), flush=True)
        except FetchError as e:
            print(f"fetch-logs: {name}: {file}: {e}", file=sys.stderr, flush=True)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
