"""New complete lines of a file that only grows, read where the last read
stopped: the scripts' launch file (workloads/launch.py, both guards) and
slurmctld's jobcomp/filetxt records (workloads/endguard.py), which other
processes append to while the replay reads them."""

import os


class Tail:
    """New complete lines of a file that only grows (a line being written
    is left for the next read). offset: where the first read begins
    (bytes)."""

    def __init__(self, path, offset=0):
        self.path = path
        self.offset = offset

    def lines(self):
        try:
            size = os.stat(self.path).st_size
            if size < self.offset:
                # a new file (the testbed's state made again): from its start
                self.offset = 0
            if size <= self.offset:
                return []
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return []
        end = data.rfind(b"\n") + 1
        self.offset += end
        return data[:end].decode("utf-8", "replace").splitlines()
