"""The replay's one-line error."""


class ReplayError(Exception):
    pass
